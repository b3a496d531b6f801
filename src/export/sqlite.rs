//! JuPedSim's SQLite trajectory file, version 2, as JuPedSim's own
//! `SqliteTrajectoryWriter` writes it: `trajectory_data(frame, id, pos_x,
//! pos_y, ori_x, ori_y)`, `metadata(key, value)` with `version` 2, `fps` and
//! the extent of the geometry (`xmin` … `ymax`), `geometry(hash, wkt)` with
//! the walkable area, and `frame_data(frame, geometry_hash)` naming each
//! frame's geometry (one geometry for the whole run). PedPy's
//! `load_trajectory_from_jupedsim_sqlite` and `load_walkable_area_from_jupedsim_sqlite`
//! read it, and so does JuPedSim's own tooling.

use std::io;
use std::path::Path;

use geo::BoundingRect;
use rusqlite::{params, Connection};

use super::{Scene, Sink};
use crate::trace::frame::{FrameView, Recorder};
use crate::world::outline;

/// The version of JuPedSim's schema this writes.
pub const DATABASE_VERSION: i64 = 2;

/// Frames per transaction: large enough that commits cost little, small
/// enough that a frame's rows are not held long.
const FRAMES_PER_COMMIT: u32 = 100;

pub struct SqliteSink {
    db: Connection,
    geometry_hash: i64,
    rows: u64,
    pending: u32,
}

fn sql(e: rusqlite::Error) -> io::Error {
    io::Error::other(format!("SQLite: {e}"))
}

impl SqliteSink {
    /// Creates the database at `path` (a new file) with the schema, the
    /// metadata and the geometry.
    pub fn create(path: &Path, scene: &Scene) -> io::Result<SqliteSink> {
        let db = Connection::open(path).map_err(sql)?;
        let wkt = outline::wkt(&scene.walkable);
        // JuPedSim keys the geometry by Python's hash of the WKT, which is
        // salted per process; any integer that names it in frame_data will do.
        let geometry_hash = (crate::hash::fnv1a64(wkt.as_bytes()) >> 1) as i64;
        let extent = scene
            .walkable
            .bounding_rect()
            .map_or([scene.bounds.min.x, scene.bounds.max.x, scene.bounds.min.y, scene.bounds.max.y], |r| {
                [r.min().x, r.max().x, r.min().y, r.max().y]
            });
        db.execute_batch(
            "PRAGMA journal_mode=OFF;
             PRAGMA synchronous=OFF;
             BEGIN;
             CREATE TABLE trajectory_data (
                frame INTEGER NOT NULL,
                id INTEGER NOT NULL,
                pos_x REAL NOT NULL,
                pos_y REAL NOT NULL,
                ori_x REAL NOT NULL,
                ori_y REAL NOT NULL);
             CREATE TABLE metadata(key TEXT NOT NULL UNIQUE PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE geometry(hash INTEGER NOT NULL, wkt TEXT NOT NULL);
             CREATE UNIQUE INDEX geometry_hash on geometry(hash);
             CREATE TABLE frame_data(frame INTEGER NOT NULL, geometry_hash INTEGER NOT NULL);
             CREATE INDEX frame_id_idx ON trajectory_data(frame, id);",
        )
        .map_err(sql)?;
        let number = crate::trace::float::format_f64;
        let meta = [
            ("version", DATABASE_VERSION.to_string()),
            ("fps", number(scene.frame_rate)),
            ("xmin", number(extent[0])),
            ("xmax", number(extent[1])),
            ("ymin", number(extent[2])),
            ("ymax", number(extent[3])),
        ];
        for (k, v) in meta {
            db.execute("INSERT INTO metadata VALUES(?1, ?2)", params![k, v]).map_err(sql)?;
        }
        db.execute("INSERT INTO geometry VALUES(?1, ?2)", params![geometry_hash, wkt]).map_err(sql)?;
        Ok(SqliteSink { db, geometry_hash, rows: 0, pending: 0 })
    }
}

impl Recorder for SqliteSink {
    fn record(&mut self, frame: &FrameView<'_>) -> io::Result<()> {
        let f = frame.frame as i64;
        {
            let mut rows =
                self.db.prepare_cached("INSERT INTO trajectory_data VALUES(?1, ?2, ?3, ?4, ?5, ?6)").map_err(sql)?;
            for i in 0..frame.len() {
                let (p, o) = (frame.pos[i], frame.ori[i]);
                rows.execute(params![f, frame.id[i], p.x, p.y, o.x, o.y]).map_err(sql)?;
            }
            let mut frames = self.db.prepare_cached("INSERT INTO frame_data VALUES(?1, ?2)").map_err(sql)?;
            frames.execute(params![f, self.geometry_hash]).map_err(sql)?;
        }
        self.rows += frame.len() as u64;
        self.pending += 1;
        if self.pending >= FRAMES_PER_COMMIT {
            self.db.execute_batch("COMMIT; BEGIN;").map_err(sql)?;
            self.pending = 0;
        }
        Ok(())
    }
}

impl Sink for SqliteSink {
    fn finish(&mut self) -> io::Result<u64> {
        self.db.execute_batch("COMMIT;").map_err(sql)?;
        Ok(self.rows)
    }
}
