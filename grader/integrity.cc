#include "headgrader/integrity.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

namespace headgrader {
namespace {

// A head as numbers in one row, its shapes first, so that heads of different shapes differ.
using Key = std::vector<double>;

void append(Key& key, const Matrix& m) {
  key.push_back(static_cast<double>(m.rows()));
  key.push_back(static_cast<double>(m.cols()));
  // -0 and 0 compare equal under <, so a sign of zero never splits a group.
  for (Eigen::Index i = 0; i < m.rows(); ++i)
    for (Eigen::Index j = 0; j < m.cols(); ++j) key.push_back(m(i, j));
}

Key literal_key(const HeadWeights& head) {
  Key key;
  append(key, head.W_q);
  append(key, head.W_k);
  append(key, head.W_V);
  return key;
}

// `m` with each entry rounded to kIntegritySignificantBits, and those below the largest times
// 2^-kIntegritySignificantBits set to 0: W_qᵀ W_k of c W_q and W_k / c differs from that of
// W_q and W_k in its last bits, and an entry that should be 0 comes out as ±1e-17.
Matrix rounded(Matrix m) {
  const double largest = m.size() == 0 ? 0 : m.cwiseAbs().maxCoeff();
  const double floor = std::ldexp(largest, -kIntegritySignificantBits);
  for (Eigen::Index i = 0; i < m.size(); ++i) {
    double& x = m.data()[i];
    if (std::abs(x) < floor || x == 0) {
      x = 0;
      continue;
    }
    int exponent = 0;
    const double mantissa = std::frexp(x, &exponent);  // [0.5, 1)
    x = std::ldexp(std::round(std::ldexp(mantissa, kIntegritySignificantBits)),
                   exponent - kIntegritySignificantBits);
  }
  return m;
}

// What the head computes, in the problem's coordinates: W_qᵀ W_k and W_V.
Key canonical_key(const HeadWeights& head) {
  Key key;
  append(key, rounded(head.W_q.transpose() * head.W_k));
  append(key, rounded(head.W_V));
  return key;
}

// The entries (indices) of each key that two or more students sent, in key order.
std::map<Key, std::vector<std::size_t>> by_key(std::span<const IntegrityEntry> entries,
                                               const std::vector<Key>& keys) {
  std::map<Key, std::vector<std::size_t>> groups;
  for (std::size_t i = 0; i < entries.size(); ++i) groups[keys[i]].push_back(i);
  return groups;
}

std::set<std::string> students_of(std::span<const IntegrityEntry> entries,
                                  const std::vector<std::size_t>& group) {
  std::set<std::string> students;
  for (const std::size_t i : group) students.insert(entries[i].student);
  return students;
}

SharedHeads shared_heads(SharedHeads::Kind kind, std::span<const IntegrityEntry> entries,
                         const std::vector<std::size_t>& group,
                         const std::set<std::string>& students, bool matches_reference) {
  SharedHeads shared{kind, {students.begin(), students.end()}, {}, matches_reference};
  for (const std::size_t i : group) shared.submission_ids.push_back(entries[i].submission_id);
  std::sort(shared.submission_ids.begin(), shared.submission_ids.end());
  return shared;
}

// For each failing entry of one literal group, the first other student (by name) who sent the
// same head for another variant. `distinct` is the group's (student, variant) pairs ascending;
// `next_other[k]` the first position after k whose variant differs from distinct[k]'s, so that
// the search skips a run of the entry's own variant in one step: O(1) for a student with one
// variant, however large the group.
void other_variant_copies(std::span<const IntegrityEntry> entries,
                          const std::vector<std::size_t>& group,
                          std::vector<OtherVariantCopy>& out) {
  std::vector<std::pair<std::string, std::string>> distinct;
  for (const std::size_t i : group) distinct.emplace_back(entries[i].student, entries[i].variant);
  std::sort(distinct.begin(), distinct.end());
  distinct.erase(std::unique(distinct.begin(), distinct.end()), distinct.end());
  if (distinct.size() < 2) return;
  // Sorted by student first, so a run of one variant is the students between two others'.
  std::vector<std::size_t> next_other(distinct.size(), distinct.size());
  for (std::size_t k = distinct.size() - 1; k-- > 0;) {
    next_other[k] = distinct[k + 1].second != distinct[k].second ? k + 1 : next_other[k + 1];
  }
  for (const std::size_t i : group) {
    const IntegrityEntry& e = entries[i];
    if (e.passed) continue;
    for (std::size_t k = 0; k < distinct.size();) {
      if (distinct[k].second == e.variant) {
        k = next_other[k];
      } else if (distinct[k].first == e.student) {
        ++k;
      } else {
        out.push_back({e.student, e.submission_id, distinct[k].first});
        break;
      }
    }
  }
}

}  // namespace

IntegrityReport compare_heads(std::span<const IntegrityEntry> entries,
                              const std::optional<HeadWeights>& reference) {
  std::vector<Key> literal, canonical;
  literal.reserve(entries.size());
  canonical.reserve(entries.size());
  for (const IntegrityEntry& e : entries) {
    literal.push_back(literal_key(e.sent));
    canonical.push_back(canonical_key(e.in_problem));
  }
  // A key and a flag rather than an optional key: GCC 12 warns that an optional vector
  // compared inside the lambdas below "may be used uninitialized" when it inlines them.
  const bool has_reference = reference.has_value();
  const Key reference_key = has_reference ? canonical_key(*reference) : Key{};
  const auto is_reference = [&](const Key& key) { return has_reference && key == reference_key; };

  IntegrityReport report;
  // Named, not structured bindings: clang before 16 cannot capture those in a lambda.
  for (const auto& literal_group : by_key(entries, literal)) {
    const std::vector<std::size_t>& group = literal_group.second;
    other_variant_copies(entries, group, report.other_variant);
    const std::set<std::string> students = students_of(entries, group);
    if (students.size() < 2) continue;
    // One literal head means another head in each variant: it is the reference's only when,
    // in every sender's variant, it computes what the reference does.
    const bool matches_reference = std::all_of(
        group.begin(), group.end(), [&](std::size_t i) { return is_reference(canonical[i]); });
    report.shared.push_back(
        shared_heads(SharedHeads::Kind::kIdentical, entries, group, students, matches_reference));
  }
  for (const auto& canonical_group : by_key(entries, canonical)) {
    const Key& key = canonical_group.first;
    const std::vector<std::size_t>& group = canonical_group.second;
    const std::set<std::string> students = students_of(entries, group);
    if (students.size() < 2) continue;
    // Heads that are all literally one: the identical group says it already.
    const bool one_literal = std::all_of(group.begin(), group.end(), [&](std::size_t i) {
      return literal[i] == literal[group.front()];
    });
    if (one_literal) continue;
    report.shared.push_back(shared_heads(SharedHeads::Kind::kSameAfterRelabeling, entries, group,
                                         students, is_reference(key)));
  }
  // Independent of the order of `entries` and of the keys' numeric order.
  std::stable_sort(report.shared.begin(), report.shared.end(),
                   [](const SharedHeads& a, const SharedHeads& b) {
                     return std::tie(a.kind, a.students.front(), a.submission_ids.front()) <
                            std::tie(b.kind, b.students.front(), b.submission_ids.front());
                   });
  std::sort(report.other_variant.begin(), report.other_variant.end(),
            [](const OtherVariantCopy& a, const OtherVariantCopy& b) {
              return std::tie(a.student, a.submission_id) < std::tie(b.student, b.submission_id);
            });
  return report;
}

}  // namespace headgrader
