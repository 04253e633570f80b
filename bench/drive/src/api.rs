//! The platform's HTTP API as the benchmark uses it: a DEV key (or no
//! credentials), JSON in and out, and an error naming the call, the status
//! and the problem body when the answer is not the expected one.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};

use crate::{Args, Result, chain};

#[derive(Clone)]
pub struct Api {
    pub http: reqwest::Client,
    /// The base URL, `/v1` included.
    pub base: String,
    key: Option<String>,
}

/// A device registered for the benchmark: its id, topic prefix and broker
/// credentials.
#[derive(Debug, Clone)]
pub struct Device {
    pub id: String,
    pub prefix: String,
    pub username: String,
    pub password: String,
}

pub fn client() -> Result<reqwest::Client> {
    client_from(None)
}

/// A client whose connections leave from `local` (a loopback address such
/// as 127.0.0.2, so the platform sees another client address).
pub fn client_from(local: Option<std::net::IpAddr>) -> Result<reqwest::Client> {
    reqwest::Client::builder()
        .local_address(local)
        // Loopback only: never through a proxy from the environment.
        .no_proxy()
        .connect_timeout(Duration::from_secs(5))
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| format!("cannot build the HTTP client: {e}"))
}

impl Api {
    /// From `--api` and `--key`.
    pub fn from_args(args: &Args) -> Result<Self> {
        Ok(Self {
            http: client()?,
            base: args.text("api")?.trim_end_matches('/').to_owned(),
            key: Some(args.text("key")?),
        })
    }

    /// Without a key, its connections leaving from `local` (None: the
    /// system's choice).
    pub fn anonymous_from(base: &str, local: Option<std::net::IpAddr>) -> Result<Self> {
        Ok(Self {
            http: client_from(local)?,
            base: base.trim_end_matches('/').to_owned(),
            key: None,
        })
    }

    pub fn request(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let request = self.http.request(method, format!("{}{path}", self.base));
        match &self.key {
            Some(key) => request.bearer_auth(key),
            None => request,
        }
    }

    /// Sends the call and returns its status and JSON body (`Null` when the
    /// body is not JSON).
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<(u16, Value)> {
        let mut request = self.request(method.clone(), path);
        if let Some(body) = body {
            request = request.json(body);
        }
        let response = request
            .send()
            .await
            .map_err(|e| format!("{method} {}{path}: {}", self.base, chain(&e)))?;
        let status = response.status().as_u16();
        let bytes = response.bytes().await.unwrap_or_default();
        Ok((
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        ))
    }

    /// [`Api::call`] that must answer `want`.
    pub async fn expect(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        want: u16,
    ) -> Result<Value> {
        let (status, answer) = self.call(method.clone(), path, body).await?;
        if status != want {
            return Err(format!(
                "{method} {path} answered {status}, expected {want}: {answer}"
            ));
        }
        Ok(answer)
    }

    /// The first home of the tenant (needs tenant:read).
    pub async fn first_home(&self, tenant: &str) -> Result<String> {
        let homes = self
            .expect(
                Method::GET,
                &format!("/properties?tenantId={tenant}"),
                None,
                200,
            )
            .await?;
        homes["items"][0]["id"]
            .as_str()
            .map(str::to_owned)
            .ok_or_else(|| format!("the tenant {tenant} has no home: {homes}"))
    }

    /// Registers `n` sensors in the tenant's first home (devices:write),
    /// with serials unique to this run and `label`.
    pub async fn register_sensors(
        &self,
        tenant: &str,
        label: &str,
        n: usize,
    ) -> Result<Vec<Device>> {
        let home = self.first_home(tenant).await?;
        let run = std::process::id();
        let mut devices = Vec::with_capacity(n);
        for i in 0..n {
            let body = json!({
                "tenantId": tenant,
                "propertyId": home,
                "name": format!("Bench {label} {i}"),
                "kind": "SENSOR",
                "capabilities": ["SENSOR"],
                "serial": format!("BENCH-{label}-{run}-{i}"),
            });
            let created = self
                .expect(Method::POST, "/devices/register", Some(&body), 201)
                .await?;
            let text = |v: &Value| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| format!("unexpected registration answer: {created}"))
            };
            devices.push(Device {
                id: text(&created["device"]["id"])?,
                prefix: text(&created["topicPrefix"])?,
                username: text(&created["credentials"]["username"])?,
                password: text(&created["credentials"]["password"])?,
            });
        }
        Ok(devices)
    }
}

/// `HOST:PORT` of `--name`, as host and port.
pub fn host_port(args: &Args, name: &str) -> Result<(String, u16)> {
    let raw = args.text(name)?;
    let raw = raw.strip_prefix("mqtt://").unwrap_or(&raw);
    let (host, port) = raw
        .rsplit_once(':')
        .ok_or_else(|| format!("--{name} {raw:?} is not HOST:PORT"))?;
    let port = port
        .parse()
        .map_err(|_| format!("--{name} {raw:?} has no port number"))?;
    Ok((host.to_owned(), port))
}
