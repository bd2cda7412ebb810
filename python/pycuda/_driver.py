"""PyCUDA's exception types (pycuda._driver), raised with PyCUDA's texts plus the playground's explanation."""


class Error(Exception):
    pass


class LogicError(Error):
    pass


class LaunchError(Error):
    pass


class MemoryError(Error):  # noqa: A001 - PyCUDA's own name
    pass


class RuntimeError(Error):  # noqa: A001
    pass


class CompileError(Error):
    def __init__(self, msg, command_line="", stdout=None, stderr=None):
        self.msg = msg
        self.command_line = command_line
        self.stdout = stdout
        self.stderr = stderr
        super().__init__(msg)

    def __str__(self):
        return self.msg
