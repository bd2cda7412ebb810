"""cupy.cuda on CUDA Playground: Event, Stream, Device, the memory a cupy.ndarray is in, and CuPy's error types."""
from cuda_playground import _runtime as rt


class _Driver:
    class CUDADriverError(RuntimeError):
        pass


driver = _Driver()


class _Compiler:
    class CompileException(Exception):
        def __init__(self, msg, source="", name="", options=(), backend="nvrtc"):
            self._msg = msg
            self.source = source
            self.name = name
            self.options = options
            super().__init__(msg)

        def get_message(self):
            return self._msg


compiler = _Compiler()


class Memory:
    def __init__(self, device_memory):
        self._device_memory = device_memory
        self.size = device_memory.size

    @property
    def ptr(self):
        return self._device_memory.address


class MemoryPointer:
    def __init__(self, mem, offset):
        self.mem = mem
        self.offset = offset

    @property
    def ptr(self):
        return self.mem.ptr + self.offset


class Event:
    def __init__(self, block=False, disable_timing=False, interprocess=False):
        self._at = None

    def record(self, stream=None):
        self._at = rt.clock_ms()

    def synchronize(self):
        pass

    @property
    def done(self):
        return True


def get_elapsed_time(start_event, end_event):
    if start_event._at is None or end_event._at is None:
        raise driver.CUDADriverError("CUDA_ERROR_INVALID_HANDLE: record both events first")
    return end_event._at - start_event._at


_count = [0]


class Stream:
    null = None

    def __init__(self, null=False, non_blocking=False, ptds=False):
        _count[0] += 1
        self.handle = 0 if null else _count[0]

    def synchronize(self):
        pass

    def use(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def record(self, event=None):
        event = event or Event()
        event.record(self)
        return event

    def wait_event(self, event):
        pass


Stream.null = Stream(null=True)


def get_current_stream():
    return Stream.null


class Device:
    def __init__(self, device=0):
        self.id = int(device)

    def synchronize(self):
        pass

    def use(self):
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @property
    def compute_capability(self):
        cc = rt.device()["cc"]
        return "%d%d" % (cc[0], cc[1])

    @property
    def mem_info(self):
        total = int(rt.device()["total_memory"])
        return (total - sum(m.size for m in rt._live.values()), total)


class _Runtime:
    @staticmethod
    def getDeviceCount():
        return 1

    @staticmethod
    def getDeviceProperties(device):
        d = rt.device()
        return {"name": d["name"].encode(), "major": d["cc"][0], "minor": d["cc"][1],
                "totalGlobalMem": d["total_memory"], "multiProcessorCount": d["sm_count"],
                "maxThreadsPerBlock": d["max_threads_per_block"], "warpSize": d["warp_size"],
                "sharedMemPerBlock": d["max_shared_per_block"]}

    @staticmethod
    def deviceSynchronize():
        pass

    @staticmethod
    def runtimeGetVersion():
        return 13000

    @staticmethod
    def driverGetVersion():
        return 13000


runtime = _Runtime()
