// gpuops emulator: the grid launcher, included once at the end of every compiled translation unit.
// Blocks run one after the other. Without a barrier in the source, the threads of a block run one after
// the other on the caller's stack; with one, each thread is a cooperative fiber (ucontext) and
// __syncthreads() switches to the next: a round runs every live thread up to its next barrier (or its
// end), so no thread passes a barrier before every live thread of its block reached it.
#pragma once
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <utility>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#endif

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/common_interface_defs.h>
#define GPUOPS_ASAN 1
#endif

namespace gpuops_emu {

#if defined(GPUOPS_ASAN)
constexpr size_t kStack = 1u << 20;
#else
constexpr size_t kStack = 256u << 10;
#endif

struct Fibers {
  ucontext_t sched;
  std::vector<ucontext_t> ctx;
  std::vector<unsigned char> done;
  std::vector<unsigned long long> barriers;  // barriers each thread has reached
  unsigned char *stacks = nullptr;
  size_t capacity = 0, page = 0;
  unsigned current = 0;
  void (*body)(void **) = nullptr;
  void **args = nullptr;
  void reserve(size_t n) {
    if (n <= capacity) return;
    if (stacks) munmap(stacks, capacity * (kStack + page));
    page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    void *p = mmap(nullptr, n * (kStack + page), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p == MAP_FAILED) fatal("cannot map fiber stacks");
    stacks = static_cast<unsigned char *>(p);
    for (size_t i = 0; i < n; ++i)  // a guard page below each stack
      if (mprotect(stacks + i * (kStack + page), page, PROT_NONE) != 0) fatal("cannot protect a fiber stack guard page");
    capacity = n;
    ctx.resize(n);
    done.resize(n);
    barriers.resize(n);
  }
  // The stacks live for one launch only. Each guard page splits the mapping, so a pool kept per shared object
  // (one per compiled unit) would add ~2 mappings per thread for every unit ever launched and soon pass the
  // kernel's vm.max_map_count: mmap then fails anywhere in the process (MemoryError, a crash).
  void release() {
    if (stacks) munmap(stacks, capacity * (kStack + page));
    stacks = nullptr;
    capacity = 0;
  }
  unsigned char *stack(size_t i) { return stacks + i * (kStack + page) + page; }
};
inline thread_local Fibers fibers;

inline void set_thread(unsigned t) {
  const dim3 &b = block_dim;
  thread_idx = uint3{t % b.x, (t / b.x) % b.y, t / (b.x * b.y)};
}

inline void switch_to(ucontext_t *from, ucontext_t *to, const void *stack_bottom, size_t size) {
#if defined(GPUOPS_ASAN)
  void *fake = nullptr;
  __sanitizer_start_switch_fiber(&fake, stack_bottom, size);
  swapcontext(from, to);
  __sanitizer_finish_switch_fiber(fake, nullptr, nullptr);
#else
  (void)stack_bottom;
  (void)size;
  swapcontext(from, to);
#endif
}

inline thread_local const void *sched_stack_bottom = nullptr;
inline thread_local size_t sched_stack_size = 0;

inline void fiber_barrier() {
  Fibers &f = fibers;
  ++f.barriers[f.current];
#if defined(GPUOPS_ASAN)
  void *fake = nullptr;
  const void *bottom = nullptr;
  size_t size = 0;
  __sanitizer_start_switch_fiber(&fake, sched_stack_bottom, sched_stack_size);
  swapcontext(&f.ctx[f.current], &f.sched);
  __sanitizer_finish_switch_fiber(fake, &bottom, &size);
#else
  swapcontext(&f.ctx[f.current], &f.sched);
#endif
}

inline void fiber_entry() {
  Fibers &f = fibers;
#if defined(GPUOPS_ASAN)
  const void *bottom = nullptr;
  size_t size = 0;
  __sanitizer_finish_switch_fiber(nullptr, &bottom, &size);
  sched_stack_bottom = bottom;
  sched_stack_size = size;
#endif
  f.body(f.args);
  f.done[f.current] = 1;
#if defined(GPUOPS_ASAN)
  __sanitizer_start_switch_fiber(nullptr, sched_stack_bottom, sched_stack_size);
#endif
  // returning resumes uc_link (the scheduler)
}

[[noreturn]] inline void divergence(const char *what) {
  std::fprintf(stderr, "gpuops emulator: barrier divergence in block (%u, %u, %u): %s\n", block_idx.x, block_idx.y,
               block_idx.z, what);
  std::fflush(stderr);
  std::abort();
}

// float32 flush-to-zero around a launch, as CuPy's -ftz=true compiles (cuda_host.h says what it covers): the
// host's MXCSR FTZ (bit 15) and DAZ (bit 6), restored afterwards. The fibers of a block inherit it (getcontext
// saves MXCSR, swapcontext restores it). Other hosts: no flush (cuda_host.h's float functions still flush).
struct FlushScope {
#if defined(__x86_64__) || defined(__i386__)
  unsigned int saved;
  explicit FlushScope(bool on) : saved(_mm_getcsr()) { _mm_setcsr(on ? saved | 0x8040u : saved & ~0x8040u); }
  ~FlushScope() { _mm_setcsr(saved); }
#else
  explicit FlushScope(bool) {}
#endif
  FlushScope(const FlushScope &) = delete;
  FlushScope &operator=(const FlushScope &) = delete;
};

// The element type of a kernel parameter that holds array data: T of a T* or of a CArray<T, ...>; void for
// anything else (scalars, indexers).
template <class T>
struct data_of { using type = void; };
template <class T>
struct data_of<T *> { using type = typename std::remove_cv<T>::type; };
template <template <class, int, bool, bool> class C, class T, int N, bool A, bool B>
struct data_of<C<T, N, A, B>> { using type = typename std::remove_cv<T>::type; };
template <class T>
constexpr bool is_f64_data = std::is_same<typename data_of<T>::type, double>::value;
// float, or a 16-bit float class (__half, __nv_bfloat16): computed in float32 on the GPU.
template <class T, class E = typename data_of<T>::type>
constexpr bool is_f32_data =
    std::is_same<E, float>::value || (std::is_class<E>::value && sizeof(E) == 2 && std::is_trivially_copyable<E>::value);
// A launch flushes unless its kernel holds float64 data and no float32/16-bit float data: float64 is not
// flushed on the GPU, and a float64 kernel's float32 arithmetic (rare) is the part the emulator gives up.
template <class... A>
constexpr bool flushes() {
  constexpr bool f64 = (false || ... || is_f64_data<A>), f32 = (false || ... || is_f32_data<A>);
  return f32 || !f64;
}

inline void run_grid(void (*body)(void **), void **args, const unsigned *grid, const unsigned *block, bool use_fibers,
                     bool flush = true) {
  const FlushScope flush_scope(flush);
  const unsigned long long nthreads = 1ull * block[0] * block[1] * block[2];
  if (nthreads == 0 || nthreads > 1024 || grid[0] == 0 || grid[1] == 0 || grid[2] == 0 || grid[1] > 65535 ||
      grid[2] > 65535 || block[2] > 64)
    fatal("invalid launch configuration (CUDA would refuse it: cudaErrorInvalidConfiguration)");
  grid_dim = dim3(grid[0], grid[1], grid[2]);
  block_dim = dim3(block[0], block[1], block[2]);
  const unsigned n = static_cast<unsigned>(nthreads);
  Fibers &f = fibers;
  struct Release {
    Fibers &f;
    ~Release() { f.release(); }
  } release{f};
  if (use_fibers) {
    f.reserve(n);
    f.body = body;
    f.args = args;
  }
  for (unsigned bz = 0; bz < grid[2]; ++bz)
    for (unsigned by = 0; by < grid[1]; ++by)
      for (unsigned bx = 0; bx < grid[0]; ++bx) {
        block_idx = uint3{bx, by, bz};
        if (!use_fibers) {
          barrier_hook = nullptr;
          for (unsigned t = 0; t < n; ++t) {
            set_thread(t);
            body(args);
          }
          continue;
        }
        for (unsigned t = 0; t < n; ++t) {
          getcontext(&f.ctx[t]);
          f.ctx[t].uc_stack.ss_sp = f.stack(t);
          f.ctx[t].uc_stack.ss_size = kStack;
          f.ctx[t].uc_link = &f.sched;
          makecontext(&f.ctx[t], fiber_entry, 0);
          f.done[t] = 0;
          f.barriers[t] = 0;
        }
        barrier_hook = fiber_barrier;
        unsigned live = n;
        while (live) {
          unsigned exited = 0, waiting = 0;
          for (unsigned t = 0; t < n; ++t) {
            if (f.done[t]) continue;
            set_thread(t);
            f.current = t;
            switch_to(&f.sched, &f.ctx[t], f.stack(t), kStack);
            if (f.done[t]) {
              --live;
              ++exited;
            } else {
              ++waiting;
            }
          }
          // CUDA requires every thread of the block to reach each __syncthreads(); strict here.
          if (exited && waiting) divergence("some threads exited while others wait at __syncthreads()");
          for (unsigned t = 1; t < n; ++t)
            if (!f.done[t] && !f.done[0] && f.barriers[t] != f.barriers[0])
              divergence("threads of one block wait at different __syncthreads() counts");
        }
        barrier_hook = nullptr;
      }
}

template <class T>
inline T load_param(void *p) {
  if (reinterpret_cast<uintptr_t>(p) % alignof(T) != 0) fatal("kernel argument buffer is misaligned");
  return *static_cast<T *>(p);
}

template <class... A, size_t... I>
inline void call_kernel(void (*k)(A...), void **args, std::index_sequence<I...>) {
  k(load_param<A>(args[I])...);
}

template <class... A>
struct KernelInfo {
  static constexpr size_t count = sizeof...(A);
  static constexpr size_t sizes[sizeof...(A) + 1] = {sizeof(A)..., 0};
  static constexpr size_t aligns[sizeof...(A) + 1] = {alignof(A)..., 0};
  static constexpr bool flush = flushes<A...>();
  template <void (*K)(A...)>
  static void body(void **args) {
    call_kernel(K, args, std::index_sequence_for<A...>{});
  }
};
template <class... A>
KernelInfo<A...> info_of(void (*)(A...));

}  // namespace gpuops_emu

#define GPUOPS_EXPORT_KERNEL(PREFIX, KERNEL, FIBERS)                                                              \
  extern "C" __attribute__((visibility("default"))) size_t PREFIX##_nparams() {                                  \
    return decltype(::gpuops_emu::info_of(&KERNEL))::count;                                                      \
  }                                                                                                             \
  extern "C" __attribute__((visibility("default"))) const size_t *PREFIX##_sizes() {                            \
    return decltype(::gpuops_emu::info_of(&KERNEL))::sizes;                                                      \
  }                                                                                                             \
  extern "C" __attribute__((visibility("default"))) const size_t *PREFIX##_aligns() {                           \
    return decltype(::gpuops_emu::info_of(&KERNEL))::aligns;                                                     \
  }                                                                                                             \
  extern "C" __attribute__((visibility("default"))) void PREFIX##_launch(const unsigned *grid,                  \
                                                                         const unsigned *block, void **args) {   \
    using info = decltype(::gpuops_emu::info_of(&KERNEL));                                                   \
    ::gpuops_emu::run_grid(&info::template body<&KERNEL>, args, grid, block, FIBERS, info::flush);          \
  }
