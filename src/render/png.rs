//! SVG to PNG with resvg: the same picture, rasterised.
//!
//! Text needs a font. `CROWD_FONT` may name a TrueType/OpenType file;
//! otherwise the usual system font folders are searched for DejaVu Sans,
//! Liberation Sans, Arial or Helvetica. Without any, the PNG has no text
//! (the SVG keeps it).

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use resvg::{tiny_skia, usvg};

/// Font files tried, best first.
const PREFERRED: [&str; 6] =
    ["DejaVuSans.ttf", "LiberationSans-Regular.ttf", "Arial.ttf", "arial.ttf", "Helvetica.ttc", "NotoSans-Regular.ttf"];
/// Folders searched, a few levels deep, in this order.
const FONT_DIRS: [&str; 5] =
    ["/usr/share/fonts", "/usr/local/share/fonts", "/Library/Fonts", "/System/Library/Fonts", "C:\\Windows\\Fonts"];
/// Larger pictures are refused rather than allocating gigabytes, px.
const MAX_PIXELS: u64 = 200_000_000;

/// The font file used for text in PNGs, if any.
pub fn font_file() -> Option<&'static Path> {
    static FONT: OnceLock<Option<PathBuf>> = OnceLock::new();
    FONT.get_or_init(|| {
        if let Some(p) = std::env::var_os("CROWD_FONT").map(PathBuf::from).filter(|p| p.is_file()) {
            return Some(p);
        }
        PREFERRED.iter().find_map(|name| FONT_DIRS.iter().find_map(|dir| find(Path::new(dir), name, 4)))
    })
    .as_deref()
}

fn find(dir: &Path, name: &str, depth: u32) -> Option<PathBuf> {
    let candidate = dir.join(name);
    if candidate.is_file() {
        return Some(candidate);
    }
    if depth == 0 {
        return None;
    }
    let mut subdirs: Vec<PathBuf> =
        std::fs::read_dir(dir).ok()?.filter_map(|e| e.ok().map(|e| e.path())).filter(|p| p.is_dir()).collect();
    subdirs.sort();
    subdirs.into_iter().find_map(|d| find(&d, name, depth - 1))
}

/// Reads and draws SVG with the font loaded once: a GIF rasterises every
/// frame through one of these.
pub struct Rasteriser {
    opt: usvg::Options<'static>,
    has_font: bool,
}

impl Rasteriser {
    pub fn new() -> Rasteriser {
        let mut opt = usvg::Options::default();
        let font = font_file().and_then(|p| std::fs::read(p).ok());
        let has_font = font.is_some();
        if let Some(bytes) = font {
            let db = opt.fontdb_mut();
            db.load_font_data(bytes);
            let family = db.faces().next().and_then(|f| f.families.first()).map(|(name, _)| name.clone());
            if let Some(family) = family {
                opt.fontdb_mut().set_sans_serif_family(family.clone());
                opt.font_family = family;
            }
        }
        Rasteriser { opt, has_font }
    }

    /// Whether text is drawn (a font was found).
    pub fn has_font(&self) -> bool {
        self.has_font
    }

    /// The picture's pixels.
    pub fn pixmap(&self, svg: &str) -> Result<tiny_skia::Pixmap, String> {
        let tree = usvg::Tree::from_str(svg, &self.opt).map_err(|e| format!("cannot read the SVG: {e}"))?;
        let size = tree.size().to_int_size();
        if u64::from(size.width()) * u64::from(size.height()) > MAX_PIXELS {
            return Err(format!("the picture is too large to rasterise ({} × {} px)", size.width(), size.height()));
        }
        let mut pixmap = tiny_skia::Pixmap::new(size.width(), size.height())
            .ok_or_else(|| format!("cannot allocate a {} × {} px picture", size.width(), size.height()))?;
        resvg::render(&tree, tiny_skia::Transform::identity(), &mut pixmap.as_mut());
        Ok(pixmap)
    }
}

impl Default for Rasteriser {
    fn default() -> Self {
        Rasteriser::new()
    }
}

/// Rasterises SVG text to PNG bytes. The second value is false when no font
/// was found (the picture then has no text).
pub fn rasterise(svg: &str) -> Result<(Vec<u8>, bool), String> {
    let r = Rasteriser::new();
    let png = r.pixmap(svg)?.encode_png().map_err(|e| format!("cannot encode the PNG: {e}"))?;
    Ok((png, r.has_font()))
}
