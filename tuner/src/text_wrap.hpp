// Wrapping what csumtune writes for people into the widths their tools hold to: a kernel
// commit message's 75 columns, a kernel source line's 100 (checkpatch.pl --strict).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace csumtune::tuner {

// `words` broken at spaces into lines of at most `width` columns; a word longer than a line
// is broken after its commas (a parameter string) where it can be. Lines are returned
// without the prefix the caller puts before them.
std::vector<std::string> wrapWords(std::string_view words, std::size_t width);

// A command line a user may paste into a shell, at most `width` columns a line: broken at
// spaces with " \" (the next line indented by two) and, inside a long word, after a comma
// with "\" and the next line at column 0, so the shell joins it back into the one word.
std::string wrapShellCommand(std::string_view command, std::size_t width);

}  // namespace csumtune::tuner
