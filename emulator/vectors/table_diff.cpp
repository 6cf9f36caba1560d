// emulator/vectors/table_diff.cpp: see table_diff.hpp.
#include "softmx/vectors/table_diff.hpp"

#include <optional>
#include <string>

#include "softmx/error.hpp"
#include "softmx/format.hpp"
#include "softmx/text.hpp"

namespace softmx::vec {

void require_run_table(const VectorReader& t) {
  if (t.header().layout != Layout::runs)
    throw InputError(quote(t.name(), 0, 240) +
                     ": not a run table (the header has no 'layout = runs'; diff compares run tables)");
}

void require_same_inputs(const VectorReader& a, const VectorReader& b) {
  const Header &ha = a.header(), &hb = b.header();
  const int d = format(ha.from).hex_digits();
  if (ha.from != hb.from)
    throw InputError(quote(b.name(), 0, 240) + ": its source format is " + std::string(format(hb.from).name) + ", " +
                     quote(a.name(), 0, 240) + "'s is " + std::string(format(ha.from).name) +
                     " (diff compares two tables over the same inputs)");
  if (ha.first != hb.first || ha.last != hb.last)
    throw InputError(quote(b.name(), 0, 240) + ": it covers " + hex(hb.first, d) + ".." + hex(hb.last, d) + ", " +
                     quote(a.name(), 0, 240) + " covers " + hex(ha.first, d) + ".." + hex(ha.last, d) +
                     " (diff compares two tables over the same inputs)");
}

RunLockstep::RunLockstep(VectorReader& a, VectorReader& b) : a_(a), b_(b) {
  a_.next_run(ra_);
  b_.next_run(rb_);
}

void RunLockstep::for_each_difference(const std::function<void(const TableDifference&)>& emit) {
  const bool flags = flags_compared();
  std::optional<TableDifference> open;
  for (;;) {
    const std::uint64_t lo = ra_.first > rb_.first ? ra_.first : rb_.first;
    const std::uint64_t hi = ra_.last < rb_.last ? ra_.last : rb_.last;
    const Outcome oa{ra_.code, flags ? ra_.flags : Flags{0}}, ob{rb_.code, flags ? rb_.flags : Flags{0}};
    if (oa != ob) {
      if (open && open->last + 1 == lo && open->a == oa && open->b == ob) {
        open->last = hi;
      } else {
        if (open) emit(*open);
        open = TableDifference{lo, hi, oa, ob};
      }
    } else if (open) {
      emit(*open);
      open.reset();
    }
    // Both tables end at the same last, so they run out together.
    const bool more_a = ra_.last != hi || a_.next_run(ra_);
    const bool more_b = rb_.last != hi || b_.next_run(rb_);
    if (!more_a || !more_b) break;
  }
  if (open) emit(*open);
}

}  // namespace softmx::vec
