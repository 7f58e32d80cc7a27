#!/usr/bin/python3
"""adaptive-dials.py BUILD_DIR [options]: how DIALS' integrated intensities and
nanobragg-match's score depend on -integration adaptive's -tolerance (issue 31).

A rotation series of 1HPV (N = 30 cells a side, 3 mosaic domains of 0.2 degree, photon
noise) is rendered by nanobragg-series with exact integration at --limit times the
automatic oversampling (the limit the reference's method converges to) and with adaptive
integration at each tolerance, the same noise seed for all; each series goes through DIALS
(dials.import, find_spots, index with the known cell and symmetry, refine, integrate), and
the integrated intensities of the reflections found in both (the same h k l, reindexed into
the limit's basis) are compared with the limit's: the correlation, the median relative
difference of those with I / sigma >= 3, and the median difference in units of sigma.  A
last row renders the tightest tolerance with another noise seed: the difference that photon
noise alone makes.  Then nanobragg-match refines the misset on the limit's first frame
(--no-search --simulate) with exact integration (the automatic oversampling) and adaptive at
each tolerance: matched peaks, rms and the simulation's correlation with the frame.

Run by hand (not in CI): with the defaults about 20 minutes on the shared 2 cores (load
average 12), mostly DIALS and the renders of the limit and of 1e-4; --reuse compares again
without them.  Needs DIALS (Debian's python3-dials) on PATH.  docs/adaptive-integration.md
gives the figures.
"""
import argparse
import json
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

CELL = [63.4, 63.4, 83.8, 90, 90, 120]
TOLERANCES = ["1e-2", "1e-3", "1e-4"]
INDEX = ["space_group=P61", "unit_cell=" + ",".join(str(c) for c in CELL),
         "detector.fix=all", "beam.fix=all", "indexing.method=fft1d",
         "indexing.basis_vector_combinations.max_refine=5"]
# a pixel-array detector's spots (tests/dials/test-dials.py says why)
FIND_SPOTS = ["spotfinder.filter.min_spot_size=3"]


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("build", help="the meson build folder (cli/nanobragg-series ...)")
    p.add_argument("--frames", type=int, default=20, help="frames of --osc degrees (20)")
    p.add_argument("--osc", type=float, default=0.5, help="degrees per frame (0.5)")
    p.add_argument("--N", type=int, default=30, help="unit cells a side (30)")
    p.add_argument("--pixels", type=int, default=512, help="detector pixels a side (512)")
    p.add_argument("--limit", type=int, default=3,
                   help="the limit's oversampling, times the automatic one (3)")
    p.add_argument("--threads", type=int, default=2, help="render threads (2)")
    p.add_argument("--work", help="keep the series and DIALS' files in this folder")
    p.add_argument("--reuse", action="store_true",
                   help="take the series DIALS integrated in --work before (compare again)")
    return p.parse_args()


def run(cmd, cwd, log=None):
    """@cmd in @cwd; its stdout (stderr too into @log); exits naming it on failure."""
    p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    if log is not None:
        with open(os.path.join(cwd, log), "a") as f:
            f.write(p.stdout + p.stderr)
    if p.returncode != 0:
        sys.exit("adaptive-dials: %s failed (exit %d) in %s:\n%s" %
                 (os.path.basename(cmd[0]), p.returncode, cwd, (p.stdout + p.stderr)[-2000:]))
    return p.stdout + p.stderr


def scene(args, data):
    return ["-hkl", os.path.join(data, "1hpv_p1.hkl"), "-cell"] + [str(c) for c in CELL] + [
        "-misset", "10", "20", "30", "-lambda", "1.0", "-N", str(args.N), "-mosaic", "0.2",
        "-mosaic_domains", "3", "-fluence", "1e24", "-phisteps", "3", "-distance", "100",
        "-detpixels", str(args.pixels), "-pixel", "0.1", "-osc", str(args.osc), "-adc", "0",
        "-precision", "single"]


def auto_oversample(cli, flags, cwd):
    out = run([cli] + flags + ["-roi", "0", "0", "0", "0", "-floatfile", "/dev/null",
                               "-nopgm", "-noprogress", "-intfile", "/dev/null", "-nonoise"], cwd)
    return int(re.search(r"(\d+)x\d+ pixel oversample steps", out).group(1))


def render(args, series, flags, d):
    os.mkdir(d)
    start = time.monotonic()
    run([series, "--frames", str(args.frames), "--format", "nexus", "--out", "s", "--quiet",
         "--threads", str(args.threads)] + flags, d, "render.log")
    return time.monotonic() - start


def process(d):
    """DIALS on the series in @d: the integrated reflections and the crystal's A, or None
    where a step failed (its log says why)."""
    steps = [["dials.import", "s_master.h5"],
             ["dials.find_spots", "imported.expt", "nproc=1"] + FIND_SPOTS,
             ["dials.index", "imported.expt", "strong.refl"] + INDEX,
             ["dials.refine", "indexed.expt", "indexed.refl"],
             ["dials.integrate", "refined.expt", "refined.refl", "nproc=1"]]
    for cmd in steps:
        p = subprocess.run(cmd, cwd=d, capture_output=True, text=True)
        with open(os.path.join(d, "dials.log"), "a") as f:
            f.write("$ %s\n%s%s" % (" ".join(cmd), p.stdout, p.stderr))
        if p.returncode != 0:
            print("# %s: %s failed (exit %d): see %s" %
                  (os.path.basename(d), cmd[0], p.returncode, os.path.join(d, "dials.log")))
            return None
    return load(d)


def load(d):
    """The integrated reflections of DIALS' run in @d, the crystal's A and cell."""
    from dials.array_family import flex
    from dxtbx.model.experiment_list import ExperimentListFactory
    crystal = ExperimentListFactory.from_json_file(os.path.join(d, "integrated.expt"),
                                                   check_format=False)[0].crystal
    refl = flex.reflection_table.from_file(os.path.join(d, "integrated.refl"))
    return refl, crystal.get_A(), crystal.get_unit_cell().parameters()


def intensities(refl, kind, to_limit):
    """{h k l in the limit's basis: (I, sigma)} of the reflections integrated by @kind
    (prf or sum), only those whose index occurs once."""
    flag = refl.flags.integrated_prf if kind == "prf" else refl.flags.integrated_sum
    sel = refl.get_flags(flag)
    out, seen = {}, set()
    for hkl, i, v, ok in zip(refl["miller_index"], refl["intensity.%s.value" % kind],
                             refl["intensity.%s.variance" % kind], sel):
        if not ok or v <= 0:
            continue
        h = tuple(int(round(sum(to_limit[r][k] * hkl[k] for k in range(3)))) for r in range(3))
        if h in seen:
            out.pop(h, None)
            continue
        seen.add(h)
        out[h] = (i, math.sqrt(v))
    return out


def basis_change(a_limit, a_mode):
    """M (integers) with h_limit = M h_mode: A_limit h_limit = A_mode h_mode."""
    from scitbx import matrix
    m = matrix.sqr(a_limit).inverse() * matrix.sqr(a_mode)
    return [[round(m[3 * r + c]) for c in range(3)] for r in range(3)]


def compare(limit, got):
    """Over the reflections of both: their number, the correlation of the
    intensities; over those with I / sigma >= 3 in the limit: their number, the
    median relative difference and the median difference in units of sigma."""
    common = sorted(set(limit) & set(got))
    if len(common) < 3:
        return len(common), float("nan"), 0, float("nan"), float("nan")
    x = [limit[h][0] for h in common]
    y = [got[h][0] for h in common]
    mx, my = statistics.fmean(x), statistics.fmean(y)
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    cc = sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else float("nan")
    strong = [h for h in common if limit[h][0] >= 3 * limit[h][1]]
    if not strong:
        return len(common), cc, 0, float("nan"), float("nan")
    rel = statistics.median(abs(got[h][0] - limit[h][0]) / limit[h][0] for h in strong)
    zs = statistics.median(abs(got[h][0] - limit[h][0]) / limit[h][1] for h in strong)
    return len(common), cc, len(strong), rel, zs


def match_scores(args, build, flags, frame, work):
    """nanobragg-match --no-search --simulate on @frame with each integration."""
    keep = ["-hkl", "-cell", "-misset", "-N", "-mosaic", "-mosaic_domains", "-precision"]
    crystal = []
    for i, w in enumerate(flags):
        if w in keep:
            n = 6 if w == "-cell" else 3 if w == "-misset" else 1
            crystal += flags[i:i + n + 1]
    rows = []
    for mode in ["exact"] + TOLERANCES:
        extra = ["-integration", "exact"] if mode == "exact" else [
            "-integration", "adaptive", "-tolerance", mode]
        cmd = [os.path.join(build, "cli", "nanobragg-match"), frame, "--frame-index", "0",
               "--no-search",
               "--simulate", "--json", "--threads", str(args.threads)] + crystal + extra
        p = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if p.returncode != 0:
            rows.append((mode, None, None, None, None))
            continue
        j = json.loads(p.stdout)
        cc = re.search(r"correlation of the simulation with the frame: ([-0-9.]+)", p.stderr)
        rows.append((mode, j.get("matched"), j.get("rms_px"),
                     float(cc.group(1)) if cc else float("nan"), j.get("seconds")))
    return rows


def main():
    args = parse_args()
    build = os.path.abspath(args.build)
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data")
    cli = os.path.join(build, "cli", "nanobragg")
    series = os.path.join(build, "cli", "nanobragg-series")
    for tool in ["dials.import", "dials.find_spots", "dials.index", "dials.refine",
                 "dials.integrate"]:
        if shutil.which(tool) is None:
            sys.exit("adaptive-dials: %s is not on PATH (DIALS: Debian's python3-dials)" % tool)
    work = os.path.abspath(args.work) if args.work else tempfile.mkdtemp(prefix="adaptive-")
    os.makedirs(work, exist_ok=True)
    flags = scene(args, data)
    os_auto = auto_oversample(cli, flags, work)
    limit_os = args.limit * os_auto
    modes = [("limit", ["-integration", "exact", "-oversample", str(limit_os)] + ["-seed", "1"])]
    modes += [(t, ["-integration", "adaptive", "-tolerance", t, "-seed", "1"])
              for t in TOLERANCES]
    modes += [("noise", ["-integration", "adaptive", "-tolerance", TOLERANCES[-1],
                         "-seed", "2"])]
    print("# 1HPV, N = %d, 3 mosaic domains, %d x %d pixels of 0.1 mm at 100 mm, %d frames "
          "of %g degree; the limit: exact at -oversample %d (%d x the automatic %d); "
          "'noise': %s with another noise seed; work folder %s" %
          (args.N, args.pixels, args.pixels, args.frames, args.osc, limit_os, args.limit,
           os_auto, TOLERANCES[-1], work))
    sys.stdout.flush()
    results = {}
    for name, extra in modes:
        d = os.path.join(work, name)
        if args.reuse and os.path.exists(os.path.join(d, "integrated.refl")):
            with open(os.path.join(d, "s_summary.json")) as f:
                secs = json.load(f)["seconds"]
            results[name] = (secs, load(d))
            continue
        secs = render(args, series, flags + extra, d)
        results[name] = (secs, process(d))
        print("# %s: rendered in %.1f s%s" % (name, secs, "" if results[name][1] else
                                               ", DIALS failed"))
        sys.stdout.flush()
    if results["limit"][1] is None:
        sys.exit("adaptive-dials: DIALS failed on the limit's series: nothing to compare")
    lrefl, la, lcell = results["limit"][1]
    print("profile-fitted (prf) and summed (sum) intensities of the reflections integrated in "
          "both (matched) against the limit's:\nCC over all; over the strong (I/sigma >= 3 "
          "in the limit): the median of |I - I_limit| / I_limit (rel) and / sigma (dz)")
    print("%-8s %8s %10s %7s %8s %6s %9s %7s %7s %8s %6s %9s %7s" %
          ("series", "render_s", "integrated", "matched", "CC_prf", "strong", "rel_prf",
           "dz_prf", "matched", "CC_sum", "strong", "rel_sum", "dz_sum"))
    ident = [[1, 0, 0], [0, 1, 0], [0, 0, 1]]
    lim = {k: intensities(lrefl, k, ident) for k in ("prf", "sum")}
    for name, _ in modes:
        secs, res = results[name]
        if res is None:
            print("%-8s %8.1f %10s" % (name, secs, "failed"))
            continue
        refl, a, _ = res
        m = basis_change(la, a)
        row = []
        for kind in ("prf", "sum"):
            row.append(compare(lim[kind], intensities(refl, kind, m)))
        n_int = int(refl.get_flags(refl.flags.integrated_sum).count(True))
        print("%-8s %8.1f %10d %7d %8.5f %6d %9.2e %7.3f %7d %8.5f %6d %9.2e %7.3f" %
              ((name, secs, n_int) + row[0] + row[1]))
    print("\nnanobragg-match --no-search --simulate on the limit's first frame:")
    print("%-12s %8s %8s %10s %9s" % ("integration", "matched", "rms_px", "CC", "seconds"))
    frame = os.path.join(work, "limit", "s_master.h5")
    for mode, matched, rms, cc, secs in match_scores(args, build, flags, frame, work):
        if matched is None:
            print("%-12s failed" % mode)
        else:
            print("%-12s %8d %8.4f %10.4f %9.3f" % (mode, matched, rms, cc, secs or 0.0))
    if not args.work:
        shutil.rmtree(work)


if __name__ == "__main__":
    main()
