//! The screenshot: a small, real PNG drawn from the page's colours and
//! layout.

use rand::Rng;

use super::helpers::{mix, rng_of};
use super::model::Model;
use super::sites::SiteKind;

impl Model<'_> {
    pub(super) fn screenshot(&self) -> Vec<u8> {
        const W: usize = 320;
        const H: usize = 200;
        let mut c = Canvas::new(W, H, (255, 255, 255));
        let mut r = rng_of(&["shot", &self.page_url]);
        let primary = self.site.color;
        let light = self.site.accent;
        let gray = (205, 205, 210);
        let dark = (40, 44, 52);
        match self.site.kind {
            SiteKind::Phish(b) => {
                c.fill(0, 0, W, H, (243, 243, 243));
                c.fill(99, 24, 122, 152, (218, 218, 222));
                c.fill(100, 25, 120, 150, (255, 255, 255));
                c.fill(130, 38, 60, 14, b.color);
                c.fill(115, 62, 90, 6, dark);
                for y in [80usize, 102] {
                    c.fill(110, y, 100, 15, (190, 190, 196));
                    c.fill(111, y + 1, 98, 13, (255, 255, 255));
                    c.fill(115, y + 5, 40, 4, (170, 170, 176));
                }
                c.fill(110, 126, 100, 15, b.color);
                c.fill(145, 131, 30, 4, (255, 255, 255));
                c.fill(128, 152, 64, 3, (0, 102, 204));
                c.fill(140, 162, 40, 3, (150, 150, 156));
            }
            _ if self.status == 404 => {
                c.fill(0, 0, W, 24, primary);
                c.fill(10, 7, 48, 10, light);
                for (x, w) in [(90usize, 36usize), (142, 36), (194, 36)] {
                    c.fill(x, 60, w, 50, (225, 225, 230));
                    c.fill(x + 10, 70, w - 20, 30, (255, 255, 255));
                }
                c.fill(95, 130, 130, 6, (120, 120, 126));
                c.fill(120, 144, 80, 4, gray);
            }
            _ => {
                c.fill(0, 0, W, 26, primary);
                c.fill(10, 8, 44, 10, mix(primary, (255, 255, 255), 0.7));
                let mut x = 300usize;
                for _ in 0..4 {
                    let w = r.random_range(18..32);
                    x = x.saturating_sub(w + 10);
                    c.fill(x, 11, w, 4, mix(primary, (255, 255, 255), 0.85));
                }
                c.fill(0, 26, W, 74, light);
                let tw = (self.title.chars().count() * 5).clamp(60, 280);
                c.fill(20, 44, tw, 10, dark);
                c.fill(20, 62, (tw * 3 / 5).max(40), 5, (90, 94, 102));
                c.fill(20, 76, 54, 14, primary);
                c.fill(30, 81, 34, 4, (255, 255, 255));
                for col in 0..3usize {
                    let x0 = 12 + col * 100;
                    c.fill(x0, 110, 96, 64, (228, 228, 232));
                    c.fill(x0 + 1, 111, 94, 62, (255, 255, 255));
                    c.fill(x0 + 6, 116, 84, 22, mix(light, primary, 0.25));
                    for line in 0..3usize {
                        let w = r.random_range(40..84);
                        c.fill(x0 + 6, 144 + line * 8, w, 3, gray);
                    }
                }
                c.fill(0, 184, W, 16, dark);
                c.fill(12, 190, 90, 3, (150, 150, 156));
                if self.site.third.iter().any(|t| t.key == "onetrust") {
                    c.fill(0, 160, W, 40, (30, 30, 30));
                    c.fill(12, 170, 180, 4, (200, 200, 200));
                    c.fill(12, 180, 140, 4, (200, 200, 200));
                    c.fill(230, 168, 78, 18, (70, 130, 220));
                }
            }
        }
        c.png()
    }
}

struct Canvas {
    pub(super) w: usize,
    pub(super) h: usize,
    pub(super) px: Vec<u8>,
}

impl Canvas {
    pub(super) fn new(w: usize, h: usize, bg: (u8, u8, u8)) -> Canvas {
        let mut px = Vec::with_capacity(w * h * 3);
        for _ in 0..w * h {
            px.extend_from_slice(&[bg.0, bg.1, bg.2]);
        }
        Canvas { w, h, px }
    }

    pub(super) fn fill(&mut self, x: usize, y: usize, w: usize, h: usize, c: (u8, u8, u8)) {
        for yy in y..(y + h).min(self.h) {
            for xx in x..(x + w).min(self.w) {
                let i = (yy * self.w + xx) * 3;
                self.px[i] = c.0;
                self.px[i + 1] = c.1;
                self.px[i + 2] = c.2;
            }
        }
    }

    fn png(&self) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, self.w as u32, self.h as u32);
            enc.set_color(png::ColorType::Rgb);
            enc.set_depth(png::BitDepth::Eight);
            // Writing into a Vec cannot fail for a well-formed image.
            if let Ok(mut wr) = enc.write_header() {
                let _ = wr.write_image_data(&self.px);
            }
        }
        out
    }
}
