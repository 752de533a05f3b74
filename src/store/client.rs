//! The async side of [`crate::store`]: one tokio runtime for the whole process, and one
//! `object_store` client per bucket, built from the provider's standard environment the first
//! time the bucket is used and shared by every thread after that.

use super::{Scheme, Url};
use crate::human::Shown;
use anyhow::{Context, Result};
use object_store::ObjectStore;
use object_store::path::Path as Key;
use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex, OnceLock};

/// Runs `future` to completion on the store runtime, from any thread that is not itself
/// inside a runtime (the CLI's threads are plain threads and rayon workers).
pub fn block_on<F: Future>(future: F) -> F::Output {
    runtime().block_on(future)
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RUNTIME: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        // Two threads drive the connections; the futures themselves run on the calling
        // threads (`block_on`), so rayon's workers each have requests in flight.
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("ctxc-store")
            .enable_all()
            .build()
            .expect("starting the object-store runtime")
    })
}

/// Runs `future` in the background on the store runtime.
pub fn spawn<F: Future<Output = ()> + Send + 'static>(future: F) {
    runtime().spawn(future);
}

/// Runs `future` in the background on the store runtime; its handle gives its output.
pub fn spawn_task<F>(future: F) -> tokio::task::JoinHandle<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    runtime().spawn(future)
}

/// One bucket's client, and for S3 the same client with the settings a request signed by
/// hand needs (see [`super::raw_list`]).
#[derive(Clone)]
struct Client {
    store: Arc<dyn ObjectStore>,
    s3: Option<Arc<S3>>,
}

/// An S3 bucket's client as [`super::raw_list`] uses it: its credentials and bucket URL, the
/// region it signs for, and an HTTP client with the same plain-http rule.
pub struct S3 {
    /// The client (its credentials, and the bucket's URL as it forms it).
    pub store: object_store::aws::AmazonS3,
    /// The region requests are signed for.
    pub region: String,
    /// Whether `http://` endpoints are allowed (`AWS_ALLOW_HTTP`).
    pub allow_http: bool,
}

/// The clients built so far, by scheme and bucket.
type Clients = Mutex<HashMap<(Scheme, String), Client>>;

/// The client for `url`'s bucket, built on first use.
pub fn store(url: &Url) -> Result<Arc<dyn ObjectStore>> {
    Ok(client(url)?.store)
}

/// The S3 client for `url`'s bucket with its settings; `None` for other stores.
pub fn s3(url: &Url) -> Result<Option<Arc<S3>>> {
    Ok(client(url)?.s3)
}

fn client(url: &Url) -> Result<Client> {
    static STORES: OnceLock<Clients> = OnceLock::new();
    let stores = STORES.get_or_init(Mutex::default);
    let id = (url.scheme, url.bucket.clone());
    if let Some(client) = stores.lock().unwrap_or_else(|e| e.into_inner()).get(&id) {
        return Ok(client.clone());
    }
    let client = build(url)
        .with_context(|| format!("setting up the client for {url}", url = url.shown()))?;
    let mut stores = stores.lock().unwrap_or_else(|e| e.into_inner());
    Ok(stores.entry(id).or_insert(client).clone())
}

/// A client configured the way each provider's own tools are: from the environment, then the
/// provider's credential chain (instance and workload identity included).
fn build(url: &Url) -> Result<Client> {
    use object_store::ClientOptions;
    let store: Arc<dyn ObjectStore> = match url.scheme {
        // AWS_ACCESS_KEY_ID/SECRET/SESSION_TOKEN, AWS_REGION, AWS_ENDPOINT_URL(_S3),
        // AWS_ALLOW_HTTP, then the profile in ~/.aws/config and ~/.aws/credentials, then web
        // identity (EKS), ECS task roles, EC2 instance metadata.
        Scheme::S3 => {
            use object_store::ClientConfigKey;
            use object_store::aws::AmazonS3ConfigKey as Key;
            let builder = s3_builder()?.with_bucket_name(&url.bucket);
            let region = builder.get_config_value(&Key::Region);
            let allow_http = builder.get_config_value(&Key::Client(ClientConfigKey::AllowHttp));
            let s3 = Arc::new(S3 {
                store: builder.build()?,
                // object_store's own default when no region is set.
                region: region.unwrap_or_else(|| "us-east-1".into()),
                allow_http: allow_http.as_deref() == Some("true"),
            });
            return Ok(Client {
                store: Arc::new(s3.store.clone()),
                s3: Some(s3),
            });
        }
        // GOOGLE_SERVICE_ACCOUNT(_KEY), GOOGLE_APPLICATION_CREDENTIALS, gcloud's application
        // default credentials, the GCE/GKE metadata server.
        Scheme::Gcs => Arc::new(
            object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&url.bucket)
                .build()?,
        ),
        // AZURE_STORAGE_ACCOUNT_NAME with a key, SAS or client secret, workload identity
        // (AKS), managed identity, the Azure CLI's login.
        Scheme::Azure => Arc::new(
            object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_container_name(&url.bucket)
                .build()?,
        ),
        Scheme::Http { tls } => {
            let origin = format!("{}://{}", if tls { "https" } else { "http" }, url.bucket);
            Arc::new(
                object_store::http::HttpBuilder::new()
                    .with_url(origin)
                    .with_client_options(ClientOptions::new().with_allow_http(!tls))
                    .build()?,
            )
        }
    };
    Ok(Client { store, s3: None })
}

/// An S3 client's settings: the environment's, and the AWS profile's where it sets none. A
/// plain `http://` endpoint needs `AWS_ALLOW_HTTP` (or a profile that sets it), said at once;
/// settings that leave only instance metadata to give credentials are remembered, so that its
/// failure reads as what it is ([`no_credentials`]).
fn s3_builder() -> Result<object_store::aws::AmazonS3Builder> {
    use object_store::ClientConfigKey;
    use object_store::aws::AmazonS3ConfigKey as Key;
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let builder = object_store::aws::AmazonS3Builder::from_env();
    let profile = super::aws_profile::load(var, |path| std::fs::read_to_string(path).ok())?;
    let profile_name = profile.as_ref().map(|p| p.name.clone());
    let builder = match profile {
        Some(profile) => profile.apply(builder, var)?,
        None => builder,
    };
    let endpoint = builder.get_config_value(&Key::Endpoint);
    let allow_http = builder.get_config_value(&Key::Client(ClientConfigKey::AllowHttp));
    if let Some(endpoint) = endpoint.filter(|e| e.starts_with("http://")) {
        if allow_http.as_deref() != Some("true") {
            anyhow::bail!(
                "the S3 endpoint {endpoint} is plain http, which is refused unless \
                 AWS_ALLOW_HTTP=true is set (a local stand-in: set it; anything else: use https)"
            );
        }
    }
    let given = [
        Key::AccessKeyId,
        Key::WebIdentityTokenFile,
        Key::ContainerCredentialsRelativeUri,
        Key::ContainerCredentialsFullUri,
    ];
    if !given.iter().any(|k| builder.get_config_value(k).is_some()) {
        let name = profile_name
            .or_else(|| var("AWS_PROFILE"))
            .or_else(|| var("AWS_DEFAULT_PROFILE"))
            .unwrap_or_else(|| "default".into());
        let _ = METADATA_ONLY.set(name);
    }
    Ok(builder)
}

/// Set when the S3 settings give no credentials, so that the client asks instance metadata:
/// the AWS profile looked at.
static METADATA_ONLY: OnceLock<String> = OnceLock::new();

/// The error to give for `e` when it is the failure to get credentials from instance
/// metadata after nothing else gave any: where ctxc looked.
pub fn no_credentials(e: &object_store::Error) -> Option<String> {
    let profile = METADATA_ONLY.get()?;
    let text = e.to_string();
    let about = ["credential", "metadata", "169.254.169.254", "token"];
    if !about.iter().any(|a| text.to_lowercase().contains(a)) {
        return None;
    }
    Some(format!(
        "no AWS credentials found (looked in: the environment (AWS_ACCESS_KEY_ID and \
         AWS_SECRET_ACCESS_KEY, AWS_WEB_IDENTITY_TOKEN_FILE, AWS_CONTAINER_CREDENTIALS_*), \
         profile {profile} in ~/.aws/credentials and ~/.aws/config, instance metadata: {})",
        first_line(&text)
    ))
}

/// The first line of a message (a store's XML body, say, left out).
pub fn first_line(text: &str) -> &str {
    text.lines().next().unwrap_or_default()
}

/// The `object_store` path of a key (a prefix without its trailing `/`).
pub fn key(url: &Url) -> Result<Key> {
    let key = url.key.trim_end_matches('/');
    Key::parse(key).map_err(|e| {
        anyhow::anyhow!(
            "{url}: not a key this client can address: {e}",
            url = url.shown()
        )
    })
}
