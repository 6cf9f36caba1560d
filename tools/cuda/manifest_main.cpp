// tools/cuda/manifest_main.cpp: softmx_capture_manifest, the MANIFEST of one capture folder.
//
//   softmx_capture_manifest DIR
//   softmx_capture_manifest --can-verify FILE
//
// DIR: hashes every *.vec table in DIR (softmx_capture_cuda's and softmx_capture_mma's) and
// writes DIR/MANIFEST: the provenance once at the top (from the tables' x- keys, which must
// agree), then "SHA256 PATH WHAT" per table. Exit status 0, or 2 with a message naming the file
// and the problem. Needs no GPU.
//
// --can-verify FILE: whether `softmx verify FILE` can check the file with this softmx: exit 0
// (it can), 3 with the reason on standard output (it cannot yet: the file names a tensor-core
// model softmx does not know, or carries block scales no model takes; capture.sh reports such
// files as waiting for their model instead of failing), 2 when the file is unreadable or wrong.
#include <cstdio>
#include <string>

#include "capture_host.hpp"
#include "softmx/error.hpp"
#include "softmx/text.hpp"
#include "softmx/vectors/output_file.hpp"

int main(int argc, char** argv) {
  try {
    if (argc == 3 && std::string(argv[1]) == "--can-verify") {
      if (const auto why = softmx::capture::verify_blocker(argv[2])) {
        std::printf("%s\n", why->c_str());
        return 3;
      }
      return 0;
    }
    if (argc != 2 || argv[1][0] == '-')
      throw softmx::InputError("usage: softmx_capture_manifest DIR | --can-verify FILE");
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
