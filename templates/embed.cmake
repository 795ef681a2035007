# Turns the .S skeletons into C++ string constants, so the csumtune binary needs no data
# files at run time. Invoked at build time: cmake -DOUT=... -DINPUTS=a|b -P embed.cmake
set(content "// Generated from templates/*.S.in by embed.cmake: do not edit.\n#include \"csumtune/templates.hpp\"\nnamespace csumtune::templates {\n")
string(REPLACE "|" ";" INPUTS "${INPUTS}")
foreach(input IN LISTS INPUTS)
  get_filename_component(name "${input}" NAME_WE)
  string(MAKE_C_IDENTIFIER "${name}" ident)
  file(READ "${input}" text)
  string(APPEND content "std::string_view ${ident}() {\n  return R\"csum_tpl(${text})csum_tpl\";\n}\n")
endforeach()
string(APPEND content "}  // namespace csumtune::templates\n")
file(WRITE "${OUT}.tmp" "${content}")
file(RENAME "${OUT}.tmp" "${OUT}")
