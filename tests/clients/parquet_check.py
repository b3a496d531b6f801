"""Check that a Parquet trace holds the same table as the CSV trace of the
same run, read the way a data scientist would: the CSV with pandas, the
Parquet file with pyarrow.

usage: parquet_check.py TRACE.csv TRACE.parquet SCENARIO FRAME_RATE

Exits 0 when the Parquet file has the CSV's columns, in its order, with the
trace's types, and every cell equal to the CSV's: numbers bit for bit (the
CSV writes each double's shortest round-trip decimal, so parsing it gives
back the exact double; `-0` is written `0`, so the Parquet file must hold
`+0`), strings as written, and a null exactly where the CSV cell is empty.
The file's key-value metadata must name the scenario and its frame rate.
Exits 1 and prints the first differences otherwise.
"""

import struct
import sys

import pandas
import pyarrow
import pyarrow.parquet

# The trace's columns and their Arrow types, as the Parquet schema gives
# them; any other column is a var (a nullable double).
TYPES = {
    "id": pyarrow.uint32(),
    "frame": pyarrow.uint64(),
    "t": pyarrow.float64(),
    "x": pyarrow.float64(),
    "y": pyarrow.float64(),
    "vx": pyarrow.float64(),
    "vy": pyarrow.float64(),
    "ori_x": pyarrow.float64(),
    "ori_y": pyarrow.float64(),
    "population": pyarrow.string(),
    "group": pyarrow.uint32(),
    "state": pyarrow.string(),
    "speed": pyarrow.float64(),
    "goal": pyarrow.string(),
    "formation": pyarrow.string(),
    "radius": pyarrow.float64(),
}
NULLABLE = {"group", "goal", "formation"}


def bits(x):
    return struct.pack("<d", x)


def main() -> int:
    csv_path, parquet_path, scenario, frame_rate = sys.argv[1:5]
    # Every cell as its text ("" where empty), quoting undone by pandas.
    csv = pandas.read_csv(csv_path, dtype=str, keep_default_na=False)
    table = pyarrow.parquet.read_table(parquet_path)
    errors = []

    if table.column_names != list(csv.columns):
        errors.append(f"columns {table.column_names}, the CSV has {list(csv.columns)}")
    if table.num_rows != len(csv):
        errors.append(f"{table.num_rows} rows, the CSV has {len(csv)}")

    meta = table.schema.metadata or {}
    if meta.get(b"crowd.scenario") != scenario.encode():
        errors.append(f"crowd.scenario is {meta.get(b'crowd.scenario')!r}, not {scenario!r}")
    if float(meta.get(b"crowd.frame_rate", b"nan")) != float(frame_rate):
        errors.append(f"crowd.frame_rate is {meta.get(b'crowd.frame_rate')!r}, not {frame_rate}")

    if not errors:
        for name in csv.columns:
            field = table.schema.field(name)
            want_type = TYPES.get(name, pyarrow.float64())
            nullable = name in NULLABLE or name not in TYPES
            if field.type != want_type or field.nullable != nullable:
                errors.append(
                    f"{name}: {field.type} (nullable {field.nullable}), expected {want_type} (nullable {nullable})"
                )
                continue
            errors.extend(compare(name, csv[name].tolist(), table.column(name).to_pylist(), want_type, nullable))

    if errors:
        print("\n".join(errors[:20]))
        return 1
    print(f"ok: {table.num_rows} rows, {table.num_columns} columns")
    return 0


def compare(name, texts, values, kind, nullable):
    """The differences between a CSV column's texts and a Parquet column."""
    out = []
    for row, (text, value) in enumerate(zip(texts, values)):
        if text == "" and (nullable or kind != pyarrow.string()):
            if value is not None:
                out.append(f"{name}, row {row}: {value!r} where the CSV cell is empty")
        elif value is None:
            out.append(f"{name}, row {row}: null where the CSV has {text!r}")
        elif kind == pyarrow.float64():
            if bits(value) != bits(float(text)):
                out.append(f"{name}, row {row}: {value!r} where the CSV has {text}")
        elif kind == pyarrow.string():
            if value != text:
                out.append(f"{name}, row {row}: {value!r} where the CSV has {text!r}")
        elif value != int(text):
            out.append(f"{name}, row {row}: {value!r} where the CSV has {text}")
        if len(out) >= 5:
            break
    return out


if __name__ == "__main__":
    sys.exit(main())
