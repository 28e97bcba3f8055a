# cmake -DPRELUDE=node_prelude.mjs -DMODULE=rung_engine.mjs -P prepend_prelude.cmake: puts the
# prelude at the top of the freshly linked module (once: the link writes the module anew).
file(READ ${PRELUDE} prelude)
file(READ ${MODULE} module)
string(FIND "${module}" "${prelude}" at)
if(NOT at EQUAL 0)
  file(WRITE ${MODULE} "${prelude}${module}")
endif()
