//! A drawn chart as a report page shows it: the pom and cells reports make them, write the image
//! under its file name and place it on the page with its title and caption.

use image::RgbImage;

/// A drawn chart, its file name, title and caption.
#[derive(Debug, Clone)]
pub struct Chart {
    pub file_name: String,
    pub title: String,
    pub caption: String,
    pub image: RgbImage,
}
