//! The engine's integration tests: one binary, a module per area (damaged
//! artifacts and stores, the store index, hosts read from URLs).

mod corrupt;
mod store_index;
mod url_hosts;
