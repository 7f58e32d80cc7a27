/* nb-cuda-probe.h: the CUDA backend's probe of the device, the thread that
 * creates its primary context, and page-locked host memory (nb-cuda.h):
 * host code with static state, included once, by nb-cuda.cu (which it
 * keeps under the size limit); CK() and fail() are nb-cuda.cu's. */
#pragma once

/* -------- probe and start -------- */

static pthread_once_t probe_once = PTHREAD_ONCE_INIT;
static int probe_ok;
static int probe_device;
static char probe_why[256];

static void
probe_run (void)
{
  int count = 0, dev = 0, major = 0, minor = 0;
  cudaDeviceProp prop;
  cudaError_t e = cudaGetDeviceCount (&count);

  if (e != cudaSuccess)
    {
      int driver = 0;

      cudaDriverGetVersion (&driver);
      if (e == cudaErrorInsufficientDriver && driver == 0)
        snprintf (probe_why, sizeof probe_why, "no CUDA driver");
      else if (e == cudaErrorInsufficientDriver)
        snprintf (probe_why, sizeof probe_why,
                  "the CUDA driver (CUDA %d.%d) is older than this build's runtime (CUDA %d.%d)",
                  driver / 1000, driver % 1000 / 10, CUDART_VERSION / 1000,
                  CUDART_VERSION % 1000 / 10);
      else if (e == cudaErrorNoDevice)
        snprintf (probe_why, sizeof probe_why, "no CUDA device");
      else
        snprintf (probe_why, sizeof probe_why, "%s", cudaGetErrorString (e));
      cudaGetLastError ();
      return;
    }
  if (count == 0)
    {
      snprintf (probe_why, sizeof probe_why, "no CUDA device");
      return;
    }
  if ((e = cudaGetDevice (&dev)) != cudaSuccess ||
      (e = cudaDeviceGetAttribute (&major, cudaDevAttrComputeCapabilityMajor, dev)) !=
          cudaSuccess ||
      (e = cudaDeviceGetAttribute (&minor, cudaDevAttrComputeCapabilityMinor, dev)) !=
          cudaSuccess ||
      (e = cudaGetDeviceProperties (&prop, dev)) != cudaSuccess)
    {
      snprintf (probe_why, sizeof probe_why, "%s", cudaGetErrorString (e));
      cudaGetLastError ();
      return;
    }
  if (major < 8)
    {
      snprintf (probe_why, sizeof probe_why,
                "device %d (%.128s) has compute capability %d.%d; this build needs 8.0 or newer",
                dev, prop.name, major, minor);
      return;
    }
  snprintf (probe_why, sizeof probe_why, "device %d, %.128s, compute capability %d.%d", dev,
            prop.name, major, minor);
  probe_device = dev;
  probe_ok = 1;
}

/* The start thread: the probe, then the primary context (cudaFree (NULL) is
 * the runtime's way to create it), which takes a few hundred ms. */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_t start_thread;
static int start_state; /* 0 not started, 1 thread running or not joined, 2 joined */

static void *
start_run (void *unused)
{
  (void) unused;
  pthread_once (&probe_once, probe_run);
  if (probe_ok && cudaSetDevice (probe_device) == cudaSuccess)
    cudaFree (NULL);
  cudaGetLastError (); /* a failure shows again, named, where the context is used */
  return NULL;
}

extern "C" void
nb_cuda_start (void)
{
  pthread_mutex_lock (&start_lock);
  if (start_state == 0)
    start_state = pthread_create (&start_thread, NULL, start_run, NULL) == 0 ? 1 : 2;
  pthread_mutex_unlock (&start_lock);
}

extern "C" int
nb_cuda_started (void)
{
  int started;

  pthread_mutex_lock (&start_lock);
  started = start_state != 0;
  pthread_mutex_unlock (&start_lock);
  return started;
}

extern "C" void
nb_cuda_start_wait (void)
{
  pthread_mutex_lock (&start_lock);
  if (start_state == 1)
    {
      pthread_join (start_thread, NULL);
      start_state = 2;
    }
  pthread_mutex_unlock (&start_lock);
}

extern "C" int
nb_cuda_probe (char *why, size_t n)
{
  pthread_once (&probe_once, probe_run);
  if (why != NULL && n > 0)
    snprintf (why, n, "%s", probe_why);
  return probe_ok;
}

/* -------- pinned host memory -------- */

extern "C" void *
nb_cuda_host_alloc (size_t bytes)
{
  void *p = NULL;

  if (!nb_cuda_probe (NULL, 0) || cudaSetDevice (probe_device) != cudaSuccess ||
      cudaMallocHost (&p, bytes > 0 ? bytes : 1) != cudaSuccess)
    {
      cudaGetLastError ();
      return NULL;
    }
  return p;
}

extern "C" void
nb_cuda_host_free (void *p)
{
  if (p != NULL && cudaFreeHost (p) != cudaSuccess)
    cudaGetLastError ();
}

extern "C" int
nb_cuda_host_is_pinned (const void *p)
{
  cudaPointerAttributes a;

  /* callers have a device context already: the probe is done, this only
   * orders its result before the read */
  if (p == NULL || !nb_cuda_probe (NULL, 0))
    return 0;
  if (cudaPointerGetAttributes (&a, p) != cudaSuccess)
    {
      cudaGetLastError ();
      return 0;
    }
  return a.type == cudaMemoryTypeHost;
}
