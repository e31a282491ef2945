"""The operator families: one module of rows per family (``binary``, ``unary``, ``activation``, ``backward``,
``reduce``), each with the NumPy forms its rows name beside it (``<family>_numpy.py``; ``common_numpy.py``
holds the ones several families share). ``descriptors.optable`` gathers the rows into the op table.

Nothing is imported here, so that ``descriptors.schema`` can reach ``reduce_numpy`` without loading the rows.
"""
