"""Load a crowd trace with PedPy and compare PedPy's classic density and
mean individual speed in a measurement area with `crowd metrics --per-frame`.

usage: compare.py TRACE FPS X0,Y0,X1,Y1 FRAME_STEP CROWD_FRAMES_CSV

Exits 0 when every frame agrees within the tolerances below, 1 otherwise.

Tolerances: both tools read the same decimal numbers (the trace writes the
shortest round-trip form, so both parse the exact same doubles, up to pandas'
float parser, which may be one unit in the last place off) and apply the same
definitions, so the results agree to rounding: counts exactly, densities to
1e-12 relative (the area's product and shapely's shoelace area may differ in
the last bit), speeds to 1e-9 m/s (a distance of tens of metres differenced
and divided: a few ulps, far below 1e-9).
"""

import math
import pathlib
import sys

import pandas
import pedpy
import shapely

DENSITY_REL = 1e-12
SPEED_ABS = 1e-9


def agree(traj, polygon, step, crowd_csv):
    """PedPy's classic density and mean individual speed in `polygon`,
    frame by frame, against crowd's per-frame output: (summary line,
    failures, frames with people in the area)."""
    ma = pedpy.MeasurementArea(polygon)
    density = pedpy.compute_classic_density(traj_data=traj, measurement_area=ma).set_index("frame")["density"]

    speed = pedpy.compute_individual_speed(
        traj_data=traj, frame_step=step, speed_calculation=pedpy.SpeedCalculation.BORDER_EXCLUDE
    )
    merged = traj.data.merge(speed, on=["id", "frame"])
    inside = merged[shapely.within(merged.point, ma.polygon)]
    mean_speed = inside.groupby("frame")["speed"].mean()

    crowd = pandas.read_csv(crowd_csv).set_index("frame")
    compared = worst_density = worst_speed = 0
    failures = []
    for frame, d in density.items():
        if frame not in crowd.index:
            failures.append(f"frame {frame}: not in crowd's output")
            continue
        row = crowd.loc[frame]
        compared += 1
        cd = float(row["area_density"])
        err = abs(cd - d) / max(abs(d), 1e-300)
        worst_density = max(worst_density, err if d else abs(cd))
        if (d == 0 and cd != 0) or (d != 0 and err > DENSITY_REL):
            failures.append(f"frame {frame}: density pedpy {d!r}, crowd {cd!r}")
        cs = row["area_speed"]
        ps = mean_speed.get(frame)
        if ps is None or (isinstance(ps, float) and math.isnan(ps)):
            if not (isinstance(cs, float) and math.isnan(cs)):
                failures.append(f"frame {frame}: pedpy has no speed, crowd {cs!r}")
        else:
            if isinstance(cs, float) and math.isnan(cs):
                failures.append(f"frame {frame}: crowd has no speed, pedpy {ps!r}")
            else:
                worst_speed = max(worst_speed, abs(float(cs) - ps))
                if abs(float(cs) - ps) > SPEED_ABS:
                    failures.append(f"frame {frame}: speed pedpy {ps!r}, crowd {cs!r}")
    with_people = int((density > 0).sum())
    summary = (
        f"{compared} frames compared ({with_people} with agents in the area, "
        f"{mean_speed.size} with a mean speed); worst density difference {worst_density:.3g} (relative), "
        f"worst speed difference {worst_speed:.3g} m/s"
    )
    return summary, failures, with_people


def main() -> int:
    trace, fps, area, step, crowd_csv = sys.argv[1:6]
    fps = float(fps)
    x0, y0, x1, y1 = (float(v) for v in area.split(","))
    step = int(step)

    # The documented way: pandas, four columns, the frame rate from the metadata.
    data = pandas.read_csv(trace)[["id", "frame", "x", "y"]]
    traj = pedpy.TrajectoryData(data=data, frame_rate=fps)

    # Pathfinder's CSV loader reads the same file (id, t, x, y; frames from t).
    pf = pedpy.load_trajectory_from_pathfinder_csv(trajectory_file=pathlib.Path(trace))
    if pf.frame_rate != round(fps):
        print(f"pathfinder loader: frame rate {pf.frame_rate}, expected {fps}")
        return 1
    a = traj.data[["id", "frame", "x", "y"]].sort_values(["frame", "id"]).reset_index(drop=True)
    b = pf.data[["id", "frame", "x", "y"]].sort_values(["frame", "id"]).reset_index(drop=True)
    if not a.equals(b):
        print("pathfinder loader: rows differ from the pandas route")
        print(a.compare(b).head())
        return 1

    polygon = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    summary, failures, with_people = agree(traj, polygon, step, crowd_csv)
    print(summary)
    for f in failures[:20]:
        print(f)
    if with_people == 0:
        print("nobody was ever in the area: the comparison says nothing")
        return 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
