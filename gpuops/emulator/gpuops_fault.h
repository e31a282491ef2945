// gpuops emulator: device faults. Force-included (after cuda_host.h) into every compiled unit.
//
// A CUDA load or store that is not aligned to its width faults (cudaErrorMisalignedAddress). Plain builds are
// compiled with -fsanitize=alignment -fsanitize-recover=alignment: the compiler checks every access through a
// typed pointer or reference against its type's alignment and calls the handler below on a misaligned one. The
// handler records the first fault of the launch (address, alignment, type, source line) and lets the kernel go
// on (x86 reads unaligned memory); the launcher (gpuops/emulator/kernels.py) takes the record after the grid and
// raises cudaErrorMisalignedAddress, and the emulated device then refuses further work, as a CUDA context does.
// Sanitized builds keep UBSan's own aborting handler (-fno-sanitize-recover=all).
#pragma once
#ifndef GPUOPS_FAULT_H
#define GPUOPS_FAULT_H
#include <cstdint>

namespace gpuops_emu {
struct UbsanLocation { const char *file; unsigned line, column; };
struct UbsanType { unsigned short kind, info; char name[1]; };
struct UbsanMismatch { UbsanLocation loc; const UbsanType *type; unsigned char log_alignment; unsigned char kind; };
struct Fault {
  unsigned long long address;
  unsigned long long alignment;  // 0: no fault
  const char *type;
  const char *file;
  unsigned line;
};
inline Fault fault{0, 0, nullptr, nullptr, 0};
}  // namespace gpuops_emu

// Called by code compiled with -fsanitize=alignment (GCC's and Clang's ABI); hidden, so each unit has its own.
extern "C" __attribute__((visibility("hidden"), used)) inline void __ubsan_handle_type_mismatch_v1(
    ::gpuops_emu::UbsanMismatch *data, std::uintptr_t pointer) {
  ::gpuops_emu::Fault &f = ::gpuops_emu::fault;
  if (f.alignment) return;  // the first fault is the one reported
  f = ::gpuops_emu::Fault{pointer, 1ull << data->log_alignment, data->type ? data->type->name : "?",
                          data->loc.file ? data->loc.file : "?", data->loc.line};
}

// Takes (and clears) this unit's fault record: the alignment is 0 when there was none.
extern "C" __attribute__((visibility("default"), used)) inline unsigned long long gpuops_take_fault(
    unsigned long long *address, const char **type, unsigned *line) {
  ::gpuops_emu::Fault f = ::gpuops_emu::fault;
  ::gpuops_emu::fault = ::gpuops_emu::Fault{0, 0, nullptr, nullptr, 0};
  *address = f.address;
  *type = f.type;
  *line = f.line;
  return f.alignment;
}
#endif  // GPUOPS_FAULT_H
