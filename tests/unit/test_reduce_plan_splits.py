"""Reduction plans the mutation run of ``gpuops/layout/reduce_plan.py`` found unpinned (tools/mutation/SURVIVORS.md):
the smallest two-pass split, the split rows and columns plans at two parts, and the strides the rows and columns
kernels read through. References: the rules the module's docstrings state (``DEFAULT_POLICY``: ``max_outputs`` 8192,
``min_reduced`` 8192, ``min_total`` 2**18, ``target_blocks`` 1024, ``min_part`` 512), worked by hand below.
"""

from __future__ import annotations

from gpuops.layout.reduce_plan import (
    ColumnsPlan,
    RowsPlan,
    column_strides,
    line_strides,
    plan_two_pass,
    split_columns,
    split_rows,
)


def test_few_blocks_worth_of_outputs_still_split_in_two() -> None:
    """600 outputs of 10000 elements each, reduced over the inner axis: under 8192 outputs, 10000 >= 8192 reduced and
    6e6 >= 2**18 in all, so two passes. One output per CuPy block (the innermost axis is reduced): 1024 // 600 is 1
    part, raised to the minimum of 2 (10000 // 512 = 19 would allow more)."""
    plan = plan_two_pass((600, 10000), (10000, 1), (1,))
    assert plan is not None and plan.parts == 2


def test_split_rows_takes_the_fewest_parts_that_reach_the_target() -> None:
    """1000 rows of 4096: ceil(1024 / 1000) = 2 parts per row give 2000 >= 1024 blocks (4096 // 512 = 8 allowed)."""
    plan = split_rows(RowsPlan(rows=1000, cols=4096, in_stride=4096, out_stride=1, threads=256))
    assert plan.parts == 2 and plan.span == 2048


def test_split_columns_splits_a_reduced_extent_of_two_parts() -> None:
    """One tile of 32 columns over 1024 reduced rows: 1024 blocks wanted, at most 1024 // 512 = 2 parts of 512."""
    plan = ColumnsPlan(outer=1, reduced=1024, inner=32, in_strides=(0, 32, 1), out_strides=(0, 1), columns=32)
    split = split_columns(plan)
    assert split.parts == 2 and split.span == 512


def test_line_strides_name_the_row_and_column_steps() -> None:
    # (3, 2) packed, reduced over its size-2 inner axis: rows 2 elements apart, columns 1.
    assert line_strides((3, 2), (2, 1), (1,)) == (2, 1)
    # (4, 3, 2) with the two inner axes reduced: rows of 6, columns of stride 1; size-1 axes are ignored.
    assert line_strides((4, 1, 3, 2), (6, 6, 2, 1), (1, 2, 3)) == (6, 1)
    # Transposed (3, 2) (strides (1, 3)): columns 3 apart, rows 1.
    assert line_strides((3, 2), (1, 3), (1,)) == (1, 3)
    # The reduced axes not one stride run (a transposed pair): no line strides.
    assert line_strides((4, 3, 2), (6, 1, 3), (1, 2)) is None


def test_column_strides_keep_a_zero_stride() -> None:
    """A (6, 5) input reduced over axis 0 and broadcast along its kept inner axis (strides (1, 0), as a fused
    prologue's operand may be): no outer axes (stride 0), reduced stride 1, inner stride 0."""
    assert column_strides((6, 5), (1, 0), (0,)) == (0, 1, 0)
    assert column_strides((2, 6, 5), (30, 5, 1), (1,)) == (30, 5, 1)
