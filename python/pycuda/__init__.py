"""PyCUDA as CUDA Playground provides it: the parts courses use, with PyCUDA's names, semantics and error types,
running on the playground's backends (see cuda_playground). `VERSION` is the PyCUDA release whose API this
follows."""
VERSION = (2024, 1)
VERSION_STATUS = ""
VERSION_TEXT = "2024.1 (CUDA Playground)"
