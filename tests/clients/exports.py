"""Read crowd's exports with the clients they are for, and compare with the CSV.

usage: exports.py CASES.json

CASES.json lists runs: {"name", "csv", "meta", "sqlite", "usd", "area":
[x0, y0, x1, y1], "step", "crowd_frames"}; "sqlite" and "usd" may be null.
For each:
- the metadata's WKT is valid, and PedPy builds a WalkableArea from it (one
  per piece, for a world that obstacles cut apart: PedPy's is one connected
  polygon) and from the SQLite file's geometry (the same area);
- PedPy's JuPedSim loader reads the SQLite file to the CSV's rows, exactly,
  at the metadata's frame rate;
- JuPedSim's own Recording reads the same frames, rate and positions;
- PedPy's classic density and mean speed in the area, from the CSV and from
  the SQLite file, agree with `crowd metrics --area` (pedpy_compare.agree);
- usd-core (pxr) opens the USD stage: metres, Z up, one time code per
  frame at the frame rate, the obstacles' tops covering the bounds less the
  walkable area, one agent prim per id, and the positions at the first,
  middle and last frame equal the CSV's.
Prints a line per run; exits 1 if any run fails.
"""

import json
import pathlib
import sqlite3
import sys

import pandas
import pedpy
import shapely

from pedpy_compare import agree


def check(case):
    failures = []
    meta = json.load(open(case["meta"]))
    fps = float(meta["frame_rate"])
    csv = pandas.read_csv(case["csv"])
    rows = csv[["id", "frame", "x", "y"]].sort_values(["frame", "id"]).reset_index(drop=True)

    # A world that obstacles cut apart is a MULTIPOLYGON; PedPy's
    # WalkableArea is one connected polygon, so each piece is one.
    geometry = shapely.from_wkt(meta["walkable_area_wkt"])
    if not geometry.is_valid:
        failures.append(f"the walkable area is not valid: {shapely.is_valid_reason(geometry)}")
    pieces = list(geometry.geoms) if geometry.geom_type == "MultiPolygon" else [geometry]
    walkable_area = sum(pedpy.WalkableArea(p).polygon.area for p in pieces)

    x0, y0, x1, y1 = case["area"]
    polygon = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    trajectories = [("csv", pedpy.TrajectoryData(data=rows, frame_rate=fps))]

    if case.get("sqlite"):
        path = pathlib.Path(case["sqlite"])
        traj = pedpy.load_trajectory_from_jupedsim_sqlite(trajectory_file=path)
        if traj.frame_rate != fps:
            failures.append(f"sqlite: frame rate {traj.frame_rate}, metadata {fps}")
        got = traj.data[["id", "frame", "x", "y"]].sort_values(["frame", "id"]).reset_index(drop=True)
        if not got.astype(rows.dtypes.to_dict()).equals(rows):
            failures.append(f"sqlite: rows differ from the CSV ({len(got)} against {len(rows)})")
        if len(pieces) == 1:
            walkable = pedpy.load_walkable_area_from_jupedsim_sqlite(trajectory_file=path).polygon.area
        else:
            con = sqlite3.connect(path)
            (wkt,) = con.execute("SELECT wkt FROM geometry").fetchone()
            walkable = shapely.from_wkt(wkt).area
        if abs(walkable - walkable_area) > 1e-9 * walkable_area:
            failures.append(f"sqlite: walkable area {walkable}, metadata's {walkable_area}")
        trajectories.append(("sqlite", traj))

        from jupedsim.recording import Recording

        rec = Recording(str(path))
        frames = int(csv["frame"].max()) + 1
        if rec.num_frames != frames or rec.fps != fps:
            failures.append(f"jupedsim: {rec.num_frames} frames at {rec.fps}/s, CSV {frames} at {fps}/s")
        for f in sorted({0, frames // 2, frames - 1}):
            want = {int(r.id): (r.x, r.y) for r in csv[csv.frame == f].itertuples()}
            have = {a.id: a.position for a in rec.frame(f).agents}
            if set(want) != set(have) or any(have[i] != want[i] for i in want):
                failures.append(f"jupedsim: frame {f} differs from the CSV")

    for label, traj in trajectories:
        summary, problems, _ = agree(traj, polygon, case["step"], case["crowd_frames"])
        failures.extend(f"{label}: {p}" for p in problems[:5])
        if label == "csv":
            line = summary

    if case.get("usd"):
        from pxr import Usd, UsdGeom

        stage = Usd.Stage.Open(case["usd"])
        if UsdGeom.GetStageMetersPerUnit(stage) != 1.0 or UsdGeom.GetStageUpAxis(stage) != "Z":
            failures.append("usd: not metres and Z up")
        if stage.GetTimeCodesPerSecond() != fps or stage.GetFramesPerSecond() != fps:
            failures.append(f"usd: {stage.GetTimeCodesPerSecond()} time codes per second, frame rate {fps}")
        # The obstacles' tops cover what the walkable area leaves of the bounds.
        lo, hi = meta["bounds"]["min"], meta["bounds"]["max"]
        blocked = (hi[0] - lo[0]) * (hi[1] - lo[1]) - walkable_area
        tops = 0.0
        for prim in stage.GetPrimAtPath("/World/Obstacles").GetChildren():
            mesh = UsdGeom.Mesh(prim)
            pts, counts, idx = mesh.GetPointsAttr().Get(), mesh.GetFaceVertexCountsAttr().Get(), mesh.GetFaceVertexIndicesAttr().Get()
            k = 0
            for c in counts:
                face = [pts[i] for i in idx[k : k + c]]
                k += c
                if c == 3 and all(p[2] > 0 for p in face):
                    (ax, ay, _), (bx, by, _), (cx, cy, _) = face
                    tops += abs((bx - ax) * (cy - ay) - (cx - ax) * (by - ay)) / 2
        if abs(tops - blocked) > 1e-3 * max(blocked, 1.0):
            failures.append(f"usd: obstacles cover {tops} m², the bounds less the walkable area {blocked} m²")
        agents = stage.GetPrimAtPath("/World/Agents").GetChildren()
        if len(agents) != csv["id"].nunique():
            failures.append(f"usd: {len(agents)} agent prims, {csv['id'].nunique()} agents in the CSV")
        last = int(csv["frame"].max())
        for f in sorted({0, last // 2, last}):
            for r in csv[csv.frame == f].itertuples():
                prim = stage.GetPrimAtPath(f"/World/Agents/agent_{int(r.id)}")
                p = prim.GetAttribute("xformOp:translate").Get(f)
                seen = UsdGeom.Imageable(prim).ComputeVisibility(f)
                if p is None or (p[0], p[1]) != (r.x, r.y) or seen != UsdGeom.Tokens.inherited:
                    failures.append(f"usd: agent {int(r.id)} at frame {f}: {p} ({seen}), CSV ({r.x}, {r.y})")
                    break

    split = f"; walkable area in {len(pieces)} pieces" if len(pieces) > 1 else ""
    print(f"{case['name']}: {'FAIL' if failures else 'ok'}; {line}{split}")
    for f in failures[:10]:
        print(f"  {f}")
    return not failures


def main() -> int:
    cases = json.load(open(sys.argv[1]))
    results = [check(c) for c in cases]
    print(f"{sum(results)} of {len(results)} runs read back as written")
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
