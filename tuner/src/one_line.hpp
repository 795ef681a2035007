// Text from outside (a results file, CPUID's brand string, a path) made safe for one line of
// a comment or a mail: what a generated file's header and a patch's subject and body print.
#pragma once

#include <string>
#include <string_view>

namespace csumtune::tuner {

// `text` on one line: control characters (C0, DEL, C1 and so line breaks), Unicode bidi and
// format controls (U+061C, U+200B-U+200F, U+202A-U+202E, U+2066-U+2069, U+FEFF) and bytes
// that are not UTF-8 each become '?'; "*/" and "/*" are broken up ("* /", "/ *") so the text
// cannot close or open a C comment; runs of spaces are squeezed to one, the ends trimmed.
std::string oneLine(std::string_view text);

// Whether `text` holds anything oneLine would replace: a control character, a bidi or format
// control, or bytes that are not UTF-8.
bool hasUnsafeChars(std::string_view text);

}  // namespace csumtune::tuner
