//! Input and output, one owner per resource: the forum (`forum`), the record (`store`, sled),
//! SMTP (`smtp`), the files bansha reads and writes, the wall clock, the log and the terminal.
//! Nothing else in bansha opens a socket, a file or reads the clock.

pub mod clock;
pub mod config_edit;
pub mod files;
pub mod fonts;
pub mod forum;
pub mod http;
pub mod listen;
pub mod log;
pub mod memory;
pub mod net_error;
pub mod progress;
pub mod qq;
pub mod replay;
pub mod smtp;
pub mod state_file;
pub mod store;
pub mod systemd;
pub mod tls;
