//! The Keil REST API (filled by the server issue).
