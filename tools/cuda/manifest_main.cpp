// tools/cuda/manifest_main.cpp: softmx_capture_manifest, the MANIFEST of one capture folder.
//
//   softmx_capture_manifest DIR
//
// Hashes every *.vec table in DIR (softmx_capture_cuda's and softmx_capture_mma's) and writes
// DIR/MANIFEST: the provenance once at the top (from the tables' x- keys, which must agree), then
// "SHA256 PATH WHAT" per table. Exit status 0, or 2 with a message naming the file and the
// problem. Needs no GPU.
#include <cstdio>

#include "capture_host.hpp"
#include "cli.hpp"
#include "vectors/output_file.hpp"

int main(int argc, char** argv) {
  try {
    if (argc != 2) throw softmx::cli::UsageError("usage: softmx_capture_manifest DIR");
    softmx::capture::Provenance p;
    const auto entries = softmx::capture::scan_tables(argv[1], p);
    softmx::vec::OutputFile out(std::string(argv[1]) + "/MANIFEST");
    out.text() = softmx::capture::manifest_text(p, entries);
    out.commit();
    std::printf("%s/MANIFEST: %zu tables from %s (%s)\n", argv[1], entries.size(), p.gpu.c_str(), p.date.c_str());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "softmx_capture_manifest: %s\n", e.what());
    return 2;
  }
}
