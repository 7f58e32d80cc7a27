/* Linked into the GTK test programs of sanitizer builds only (tests/gtk/meson.build).
 *
 * GTK probes OpenGL through EGL first; on Xvfb that fails and Mesa unloads its software driver
 * (swrast_dri.so) before GTK falls back to GLX.  The driver keeps a small allocation from a
 * pthread_once in its own static data, and once the module is unmapped LeakSanitizer sees the
 * block unreferenced and its stack as "<unknown module>".  Keeping every module loaded for the
 * life of the test process is the truthful answer: the block stays reachable, exactly as it is
 * in a process that never unloads the driver, while any block Braggscope itself loses is still
 * reported, now with every frame symbolised.
 *
 * The executable's definition interposes on the C library's for every module (the program
 * exports it, see meson.build); the handle stays valid, as dlclose's contract allows.
 */

int dlclose (void *handle);

int
dlclose (void *handle)
{
  (void) handle;
  return 0;
}
