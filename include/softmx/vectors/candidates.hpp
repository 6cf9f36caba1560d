// softmx/vectors/candidates.hpp: the implementations softmx can imitate for one
// operation — every dialect x rounding x saturation (x scale rule for quantize, x accumulation
// model for dot, x tininess when flags are compared) — as evaluators, for `verify` (which of
// them gives a device's result?) and `identify` (which agrees best with a device?).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "softmx/vectors/header.hpp"
#include "softmx/vectors/operation.hpp"

namespace softmx::vec {

struct Candidate {
  Header header;                      ///< the file's header with the varied keys replaced
  std::unique_ptr<Evaluator> eval;
  /// The varied settings without the dialect: "rna finite", "rne finite scale=ceil",
  /// "rz none acc=fp32-sequential tininess=before". Candidates with the same key differ only
  /// in the dialect.
  std::string key;
};

/// Every candidate the dialects support for `h`'s operation (unsupported combinations are left
/// out), in a fixed order: the header's own settings first, then dialects in table order,
/// roundings in enum order, saturations, scale rules / models, tininess. `vary_tininess` adds
/// the other tininess rules, before and after-bounded (only flags can tell them apart).
std::vector<Candidate> make_candidates(const Header& h, bool vary_tininess);

/// The settings of `c` that differ from `h` ("rounding rna instead of rne; dialect torchao
/// instead of ocp"), empty when none.
std::string differences(const Header& h, const Header& c);

/// The dialect policies of `b` that differ from `a`'s and matter for `h`'s operation
/// ("e8m0_ties up (ocp: even)"), one string each.
std::vector<std::string> policy_differences(const Dialect& a, const Dialect& b, const Header& h);

/// Groups candidate indices that share a key and lists them as "rna finite (ocp, cuda)"; a
/// group with every dialect that supports the settings reads "rna finite (any dialect)".
std::string group_text(const std::vector<Candidate>& all, const std::vector<std::size_t>& chosen);

}  // namespace softmx::vec
