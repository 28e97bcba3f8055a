#include "syntax/syntax_kind.h"

namespace rung::syntax {
namespace {

struct KindInfo {
  std::string_view name;
  std::string_view describe;
  std::string_view text;
  enum Class : std::uint8_t { Trivia, Token, Keyword, Contextual, Punct, Sentinel, Node } cls;
};

constexpr KindInfo kInfo[] = {
#define RUNG_TRIVIA(n, d) {#n, d, "", KindInfo::Trivia},
#define RUNG_TOKEN(n, d) {#n, d, "", KindInfo::Token},
#define RUNG_KEYWORD(n, t) {#n, "`" t "`", t, KindInfo::Keyword},
#define RUNG_CONTEXTUAL(n, t) {#n, "`" t "`", t, KindInfo::Contextual},
#define RUNG_PUNCT(n, t) {#n, "`" t "`", t, KindInfo::Punct},
#include "syntax/syntax_kind.def"
    {"LAST_TOKEN", "", "", KindInfo::Sentinel},
#define RUNG_NODE(n) {#n, #n, "", KindInfo::Node},
#include "syntax/syntax_kind.def"
};
static_assert(sizeof(kInfo) / sizeof(kInfo[0]) == static_cast<std::size_t>(SyntaxKind::kCount_));

const KindInfo& info(SyntaxKind k) {
  auto i = static_cast<std::size_t>(k);
  return i < sizeof(kInfo) / sizeof(kInfo[0]) ? kInfo[i] : kInfo[static_cast<std::size_t>(SyntaxKind::kLastToken_)];
}

}  // namespace

static_assert(SyntaxKind::WHITESPACE == SyntaxKind{} && SyntaxKind::BLOCK_COMMENT == SyntaxKind{3},
              "is_trivia relies on the trivia kinds coming first");
bool is_keyword(SyntaxKind k) { return info(k).cls == KindInfo::Keyword || info(k).cls == KindInfo::Contextual; }
bool is_punct(SyntaxKind k) { return info(k).cls == KindInfo::Punct; }
std::string_view kind_name(SyntaxKind k) { return info(k).name; }
std::string_view describe(SyntaxKind k) { return info(k).describe; }
std::string_view fixed_text(SyntaxKind k) { return info(k).text; }

SyntaxKind keyword_kind(std::string_view text) {
  // Short words and few of them: a linear scan over the keyword block is fast enough and
  // cannot drift from the .def list.
  if (text.size() < 2 || text.size() > 8) return SyntaxKind::IDENT;
#define RUNG_KEYWORD(n, t) \
  if (text == t) return SyntaxKind::n;
#include "syntax/syntax_kind.def"
  return SyntaxKind::IDENT;
}

SyntaxKind contextual_kind(std::string_view text) {
#define RUNG_CONTEXTUAL(n, t) \
  if (text == t) return SyntaxKind::n;
#include "syntax/syntax_kind.def"
  return SyntaxKind::IDENT;
}

}  // namespace rung::syntax
