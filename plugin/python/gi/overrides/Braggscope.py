"""PyGObject override of Braggscope-1.0: NumPy arrays of frames and geometry maps.

Installed with the typelib (site-packages/gi/overrides/Braggscope.py, as GTK's and
GStreamer's overrides are), so `from gi.repository import Braggscope` brings these methods:

    frame.to_numpy()                        # float32 (height, width), photons, no copy
    measured.to_numpy()                     # float32 (height, width), counts, NaN = no measurement
    measured.to_numpy(counts=True)          # int32 (height, width), the file's counts
    frame.get_geometry().to_numpy("two_theta")  # "d_spacing", "two_theta", "q", "azimuth"

The arrays are read-only.  A frame's and a measured frame's arrays share their memory and keep
the frame alive (the array's base chain holds it); a geometry map is computed on the call.
NumPy is imported on the first call only: without it, the rest of the module works.
"""
import ctypes

from ..module import get_introspection_module
from ..overrides import override

Braggscope = get_introspection_module("Braggscope")

__all__ = []

_GEOMETRY_MAPS = {
    "d_spacing": Braggscope.GeometryMap.D_SPACING,
    "two_theta": Braggscope.GeometryMap.TWO_THETA,
    "q": Braggscope.GeometryMap.Q,
    "azimuth": Braggscope.GeometryMap.AZIMUTH,
}

_c = {}


def _library():
    """The C functions of the library the typelib loaded (its soname, as the typelib names it:
    dlopen() of it returns the handle GObject Introspection already holds)."""
    if not _c:
        import gi

        gi.require_version("GIRepository", "2.0")
        from gi.repository import GIRepository

        names = GIRepository.Repository.get_default().get_shared_library("Braggscope").split(",")
        lib = ctypes.CDLL(names[0])
        lib.braggscope_frame_get_data.restype = ctypes.c_void_p
        lib.braggscope_frame_get_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.braggscope_measured_frame_get_pixels.restype = ctypes.c_void_p
        lib.braggscope_measured_frame_get_pixels.argtypes = [ctypes.c_void_p]
        lib.braggscope_measured_frame_get_counts.restype = ctypes.c_void_p
        lib.braggscope_measured_frame_get_counts.argtypes = [ctypes.c_void_p]
        lib.g_bytes_get_data.restype = ctypes.c_void_p
        lib.g_bytes_get_data.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_size_t)]
        lib.g_bytes_unref.argtypes = [ctypes.c_void_p]
        capsule = ctypes.pythonapi.PyCapsule_GetPointer
        capsule.restype = ctypes.c_void_p
        capsule.argtypes = [ctypes.py_object, ctypes.c_char_p]
        _c["lib"], _c["capsule"] = lib, capsule
    return _c["lib"]


def _view(owner, address, n, ctype, dtype, height, width):
    """A read-only (height, width) NumPy view of @n values at @address that keeps @owner alive:
    the array's base is a ctypes array whose `owner` attribute holds it."""
    import numpy as np

    memory = (ctype * n).from_address(address)
    memory.owner = owner
    array = np.frombuffer(memory, dtype=dtype).reshape(height, width)
    array.flags.writeable = False
    return array


class Frame(Braggscope.Frame):
    def to_numpy(self):
        """The pixels, photons per pixel, as a read-only float32 NumPy array of shape
        (height, width) (row y is the slow index), sharing the frame's memory: no copy, and the
        array keeps the frame alive."""
        lib = _library()
        n = ctypes.c_size_t()
        address = lib.braggscope_frame_get_data(_c["capsule"](self.__gpointer__, None), ctypes.byref(n))
        return _view(self, address, n.value, ctypes.c_float, "float32", self.props.height, self.props.width)


Frame = override(Frame)
__all__.append("Frame")


class MeasuredFrame(Braggscope.MeasuredFrame):
    def to_numpy(self, counts=False):
        """The measured pixels as a read-only NumPy array of shape (height, width) sharing the
        frame's memory (no copy; the array keeps the frame alive): float32 with NaN where a pixel
        is no measurement (get_pixels), or with @counts the file's counts as int32
        (get_counts)."""
        lib = _library()
        pointer = _c["capsule"](self.__gpointer__, None)
        gbytes = (lib.braggscope_measured_frame_get_counts if counts else lib.braggscope_measured_frame_get_pixels)(pointer)
        size = ctypes.c_size_t()
        address = lib.g_bytes_get_data(gbytes, ctypes.byref(size))
        # the frame holds its own reference to these bytes, and the view holds the frame
        lib.g_bytes_unref(gbytes)
        ctype, dtype = (ctypes.c_int32, "int32") if counts else (ctypes.c_float, "float32")
        return _view(self, address, size.value // 4, ctype, dtype, self.get_height(), self.get_width())


MeasuredFrame = override(MeasuredFrame)
__all__.append("MeasuredFrame")


class Geometry(Braggscope.Geometry):
    def to_numpy(self, which):
        """One quantity for every pixel centre, as pyFAI's geometry arrays: @which is
        "d_spacing" (Angstrom), "two_theta" (degrees), "q" (1/Angstrom) or "azimuth" (degrees),
        as a read-only float32 array of shape (height, width) (get_map)."""
        import numpy as np

        if which not in _GEOMETRY_MAPS:
            raise ValueError(f"{which!r}: not one of {', '.join(_GEOMETRY_MAPS)}")
        width, height = self.get_size()
        data = self.get_map(_GEOMETRY_MAPS[which]).get_data()
        array = np.frombuffer(data, dtype=np.float32).reshape(height, width)
        return array


Geometry = override(Geometry)
__all__.append("Geometry")
