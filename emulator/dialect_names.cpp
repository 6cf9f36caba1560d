// emulator/dialect_names.cpp: the names of the dialect policy values (include/softmx/dialect.hpp
// name(...)), one table per enum (core/enum_names.hpp): `softmx dialects`, explain and the
// docs print these. A new policy value is one row here.
#include "core/enum_names.hpp"
#include "softmx/dialect.hpp"

namespace softmx {
namespace {

using detail::EnumName;
using detail::enum_name;

constexpr EnumName<NanSign> kNanSign[] = {
    {NanSign::preserve, "preserve"}, {NanSign::positive, "positive"}, {NanSign::negative, "negative"}};
constexpr EnumName<NanPayload> kNanPayload[] = {{NanPayload::canonical, "canonical"},
                                                {NanPayload::preserve, "preserve"},
                                                {NanPayload::all_ones, "all_ones"},
                                                {NanPayload::exact, "exact"},
                                                {NanPayload::signalling_one, "signalling_one"}};
constexpr EnumName<NanToFinite> kNanToFinite[] = {{NanToFinite::positive_max, "positive_max"},
                                                  {NanToFinite::signed_max, "signed_max"},
                                                  {NanToFinite::positive_zero, "positive_zero"},
                                                  {NanToFinite::negative_zero, "negative_zero"},
                                                  {NanToFinite::flipped_zero, "flipped_zero"},
                                                  {NanToFinite::signed_value, "signed_value"},
                                                  {NanToFinite::error, "error"}};
constexpr EnumName<E8m0Zero> kE8m0Zero[] = {
    {E8m0Zero::min_scale, "min_scale"}, {E8m0Zero::nan, "nan"}, {E8m0Zero::min_if_satfinite, "min_if_satfinite"}};
constexpr EnumName<E8m0Below> kE8m0Below[] = {{E8m0Below::clamp_min, "clamp_min"}, {E8m0Below::nan, "nan"}};
constexpr EnumName<E8m0Negative> kE8m0Negative[] = {{E8m0Negative::nan, "nan"},
                                                    {E8m0Negative::magnitude, "magnitude"},
                                                    {E8m0Negative::min_if_satfinite, "min_if_satfinite"},
                                                    {E8m0Negative::saturate_zero, "saturate_zero"}};
constexpr EnumName<OverflowNoInf> kOverflowNoInf[] = {{OverflowNoInf::nan, "nan"},
                                                      {OverflowNoInf::max_finite, "max_finite"}};
constexpr EnumName<RoOverflow> kRoOverflow[] = {{RoOverflow::max_finite, "max_finite"},
                                                {RoOverflow::odd_code, "odd_code"}};
constexpr EnumName<E8m0Ties> kE8m0Ties[] = {{E8m0Ties::even, "even"}, {E8m0Ties::up, "up"}};
constexpr EnumName<SatfiniteInf> kSatfiniteInf[] = {{SatfiniteInf::max_finite, "max_finite"},
                                                    {SatfiniteInf::as_none, "as_none"}};
constexpr EnumName<NearestTies> kNearestTies[] = {{NearestTies::even, "even"}, {NearestTies::toward_zero, "toward_zero"}};
constexpr EnumName<ZeroBlockScale> kZeroBlockScale[] = {{ZeroBlockScale::min_scale, "min_scale"},
                                                        {ZeroBlockScale::unit_scale, "unit_scale"}};
constexpr EnumName<NanBlock> kNanBlock[] = {
    {NanBlock::nan_scale, "nan_scale"}, {NanBlock::propagate, "propagate"}, {NanBlock::nanmax, "nanmax"}};
constexpr EnumName<InfBlock> kInfBlock[] = {
    {InfBlock::nan_scale, "nan_scale"}, {InfBlock::max_scale, "max_scale"}, {InfBlock::ignore, "ignore"}};
constexpr EnumName<NanScaleElements> kNanScaleElements[] = {{NanScaleElements::convert, "convert"},
                                                            {NanScaleElements::zero, "zero"},
                                                            {NanScaleElements::nan, "nan"},
                                                            {NanScaleElements::hw_exact_subnormals, "hw_exact_subnormals"}};
constexpr EnumName<ScaleOverflow> kScaleOverflow[] = {{ScaleOverflow::clamp, "clamp"}, {ScaleOverflow::nan, "nan"}};
constexpr EnumName<ElementScaling> kElementScaling[] = {{ElementScaling::exact, "exact"},
                                                        {ElementScaling::f32_reciprocal, "f32_reciprocal"},
                                                        {ElementScaling::te_int_reciprocal, "te_int_reciprocal"}};
constexpr EnumName<ZeroSign> kZeroSign[] = {{ZeroSign::keep, "keep"}, {ZeroSign::positive, "positive"}};
constexpr EnumName<DequantScaling> kDequantScaling[] = {
    {DequantScaling::exact, "exact"}, {DequantScaling::te_exp2f, "te_exp2f"}, {DequantScaling::te_bits, "te_bits"}};

}  // namespace

std::string_view name(NanSign v) { return enum_name(v, kNanSign); }
std::string_view name(NanPayload v) { return enum_name(v, kNanPayload); }
std::string_view name(NanToFinite v) { return enum_name(v, kNanToFinite); }
std::string_view name(E8m0Below v) { return enum_name(v, kE8m0Below); }
std::string_view name(E8m0Zero v) { return enum_name(v, kE8m0Zero); }
std::string_view name(E8m0Negative v) { return enum_name(v, kE8m0Negative); }
std::string_view name(OverflowNoInf v) { return enum_name(v, kOverflowNoInf); }
std::string_view name(RoOverflow v) { return enum_name(v, kRoOverflow); }
std::string_view name(E8m0Ties v) { return enum_name(v, kE8m0Ties); }
std::string_view name(SatfiniteInf v) { return enum_name(v, kSatfiniteInf); }
std::string_view name(NearestTies v) { return enum_name(v, kNearestTies); }
std::string_view name(ZeroBlockScale v) { return enum_name(v, kZeroBlockScale); }
std::string_view name(NanBlock v) { return enum_name(v, kNanBlock); }
std::string_view name(InfBlock v) { return enum_name(v, kInfBlock); }
std::string_view name(NanScaleElements v) { return enum_name(v, kNanScaleElements); }
std::string_view name(ScaleOverflow v) { return enum_name(v, kScaleOverflow); }
std::string_view name(ElementScaling v) { return enum_name(v, kElementScaling); }
std::string_view name(ZeroSign v) { return enum_name(v, kZeroSign); }
std::string_view name(DequantScaling v) { return enum_name(v, kDequantScaling); }

}  // namespace softmx
