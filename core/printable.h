// Printable: a string as it may be echoed to a terminal in a message.
//
// Specs and file names come from people and from files, and may hold control
// characters (an escape sequence that recolours or clears the terminal, a
// newline that makes one error look like two). Messages show them escaped:
// \n, \r, \t, \\ stays as it is, and every other control byte (C0, DEL and
// the C1 range as UTF-8) as \xNN. Printable text, UTF-8 included, passes
// unchanged.
//
//   return Status::Error("invalid format spec '" + Printable(spec) + "'");
//   std::cout << PrintableLines(table_text);  // a text of many lines
//
// Header-only: formats/ (std only) uses it as well as every layer above.
#ifndef LPSIM_CORE_PRINTABLE_H_
#define LPSIM_CORE_PRINTABLE_H_

#include <string>
#include <string_view>

namespace lpsim {

inline std::string Printable(std::string_view s) {
  static const char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  auto hex = [&](unsigned char c) {
    out += "\\x";
    out += kHex[c >> 4];
    out += kHex[c & 15];
  };
  for (size_t i = 0; i < s.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(s[i]);
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (c < 0x20 || c == 0x7f) {
      hex(c);
    } else if (c == 0xc2 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(s[i + 1]) <= 0x9f) {
      // U+0080..U+009F: C1 controls (CSI is U+009B), shown as their two bytes.
      hex(c);
      hex(static_cast<unsigned char>(s[++i]));
    } else if (c >= 0x80 && c <= 0x9f && (i == 0 || static_cast<unsigned char>(s[i - 1]) < 0x80)) {
      // A lone C1 byte, not part of a UTF-8 sequence: an 8-bit terminal
      // would read it as a control.
      hex(c);
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// The same for a block of text whose lines are meant: every line escaped on
// its own, the line breaks kept.
inline std::string PrintableLines(std::string_view s) {
  std::string out;
  size_t start = 0;
  while (start <= s.size()) {
    const size_t nl = s.find('\n', start);
    out += Printable(s.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start));
    if (nl == std::string_view::npos) break;
    out += '\n';
    start = nl + 1;
  }
  return out;
}

}  // namespace lpsim

#endif  // LPSIM_CORE_PRINTABLE_H_
