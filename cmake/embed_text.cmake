# cmake -DIN=file -DOUT=header -DNAME=identifier -P embed_text.cmake: writes IN's text as
#   inline constexpr const char NAME[] = R"...(text)...";
# (pieces of at most 16,000 bytes, as MSVC and the C++ standard's minimum limits allow).
file(READ "${IN}" text)
string(LENGTH "${text}" length)
set(out "// Generated from ${IN} by cmake/embed_text.cmake: do not edit.\n#pragma once\ninline constexpr const char ${NAME}[] =\n")
set(at 0)
while(at LESS length)
  string(SUBSTRING "${text}" ${at} 16000 piece)
  string(APPEND out "    R\"mha_text(${piece})mha_text\"\n")
  math(EXPR at "${at} + 16000")
endwhile()
string(APPEND out "    \"\";\n")
file(WRITE "${OUT}" "${out}")
