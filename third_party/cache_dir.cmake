# Where fetched third-party archives are kept (imgui_bundle.cmake, nvdisasm.cmake): outside the repository.
if(DEFINED ENV{CUDA_PLAYGROUND_THIRD_PARTY_CACHE})
  set(_cp_default_cache "$ENV{CUDA_PLAYGROUND_THIRD_PARTY_CACHE}")
elseif(DEFINED ENV{XDG_CACHE_HOME} AND NOT "$ENV{XDG_CACHE_HOME}" STREQUAL "")
  set(_cp_default_cache "$ENV{XDG_CACHE_HOME}/cuda-playground/third_party")
else()
  set(_cp_default_cache "$ENV{HOME}/.cache/cuda-playground/third_party")
endif()
set(CP_THIRD_PARTY_CACHE "${_cp_default_cache}" CACHE PATH "Where downloaded third-party archives are kept")
