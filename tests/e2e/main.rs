//! Black-box tests: the local platform spawned on free ports, driven over real
//! HTTP (and, as the device plane arrives, a real MQTT client).

mod authz;
mod capabilities;
mod commands;
mod developer_account;
mod developer_admin;
mod developer_keys;
mod developer_quota;
mod device_history;
mod device_lifecycle;
mod device_plane;
mod device_settings;
mod devices;
mod endpoints;
mod guests;
mod household_auth;
mod integrations;
mod invitations;
mod live_keys;
mod network_condition;
mod notifications;
mod overview;
mod people;
mod platform;
mod poison_messages;
mod properties;
mod rate_limit;
mod rooms;
mod routines;
mod simulator;
mod store_calls;
mod stream;
mod submissions;
mod webhook_binding;
mod webhooks;
mod widgets;
