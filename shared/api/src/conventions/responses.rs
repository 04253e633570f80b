//! The problem answers several operations give with the same status and
//! wording. A handler's `responses(...)` names one of these types instead
//! of repeating its tuple, so each wording is written (and changed) in one
//! place; an answer only one operation gives stays a tuple in its handler.

/// Declares problem responses: `Name = status, "description";` is a
/// `utoipa::IntoResponses` type answering `status` with a `Problem` body.
macro_rules! problem_responses {
    ($($(#[$attr:meta])* $name:ident = $status:tt, $description:tt;)*) => {$(
        $(#[$attr])*
        #[derive(utoipa::IntoResponses)]
        #[response(
            status = $status,
            description = $description,
            content_type = "application/problem+json"
        )]
        pub struct $name(#[allow(dead_code)] $crate::conventions::problem::Problem);
    )*};
}
pub(crate) use problem_responses;

problem_responses! {
    // Who the caller is.
    /// A household session or a key authenticates the operation.
    NoValidToken = 401, "No valid token";
    /// A developer session or a developer's key authenticates the operation.
    NoDeveloperSessionOrKey = 401, "No valid developer session or key";
    /// Only a developer session may call the operation.
    NoDeveloperSession = 401, "No valid developer session";

    // Malformed requests.
    MalformedId = 400, "A malformed id";
    MalformedIdOrPage = 400, "A malformed id, limit or cursor";
    MalformedIdOrTenant = 400, "A malformed id or tenantId";
    MalformedIdOrKey = 400, "A malformed id or key";
    BadPage = 400, "Bad limit or cursor";
    BadTenantPage = 400, "Missing or malformed tenantId, limit or cursor";
    BadPropertyPage = 400, "Missing or malformed tenantId, propertyId, limit or cursor";
    BadDeviceLogPage = 400, "Missing or malformed tenantId, deviceId, from, to, limit or cursor";
    BadTenantOrProperty = 400, "Missing or malformed tenantId or propertyId";
    BadTenantOrDevice = 400, "Missing or malformed tenantId or deviceId";
    BadTenantOrRoom = 400, "Missing or malformed tenantId or roomId";
    BadTenantOrRoutine = 400, "Missing or malformed tenantId or routineId";
    BadTenantOrIntegration = 400, "Missing or malformed tenantId or integrationId";
    FieldWrong = 400, "A field is wrong (named)";
    FieldWrongNamedInField = 400, "A field is wrong (named in `field`)";
    NoToken = 400, "No token";
    NoEmail = 400, "No email";
    BadCode = 400, "The code is not 6 digits, wrong, or already used";
    BodyNotJson = 415, "The body is not JSON";

    // What the caller may do.
    NoHouseholdSession = 401, "No valid household session";
    CalledWithKey = 403, "Called with a key";
    NotHouseholdSession = 403, "Not a household session (a key, a widget, a developer)";
    AccountSuspended = 403, "The account is suspended";
    DeveloperNotActive = 403, "The developer account is not active";
    KeyWithoutThingsRead = 403, "A key without things:read";
    MayNotControlThings = 403, "A key without things:control, or platform SUPPORT";
    KeyWithoutDevicesRead = 403, "A key without devices:read";
    MayNotManageDevices = 403, "A key without devices:write, or a caller without a role that manages devices";
    KeyWithoutIntegrationsRead = 403, "A key without integrations:read";
    MayNotReadCatalogue = 403, "A key without integrations:read, or a widget token";
    MayNotConfigureIntegrations = 403, "A key without integrations:write, or a caller who sees the home without configuring it";
    MayNotReadConnectors = 403, "A key without integrations:read, or a LIVE key";
    MayNotWriteConnectors = 403, "A key without integrations:write, or a LIVE key";
    MayNotConfigureHome = 403, "A key without rooms:write, or a caller who sees the home without configuring it";
    MayNotConfigureRoom = 403, "A key without rooms:write, or a caller who may not configure the room";
    MayNotSaveRoutine = 403, "A key without rooms:write, a caller who sees the home without configuring it, or a security step saved by anyone who does not control the home's security (every key)";
    KeyWithoutWebhooksWrite = 403, "A key without webhooks:write";
    KeyWithoutSimulatorWrite = 403, "A key without simulator:write";
    MayNotSimulate = 403, "A key without simulator:write, a caller who is not the sandbox's ADMIN, or a tenant that is not a sandbox";
    NotHouseholdOwner = 403, "Not an owner of the household (or a key, widget or connector credential)";

    // Missing objects (a foreign one answers the same).
    NoSuchTenant = 404, "No such tenant (or not one the caller sees)";
    NoSuchTenantOfCaller = 404, "No such tenant (or not one of the caller's)";
    NoSuchTenantOrProperty = 404, "No such tenant or property (or not one the caller sees)";
    NoSuchProperty = 404, "No such property (or not one the caller sees)";
    NoSuchHome = 404, "No such home (or not the caller's)";
    NoSuchHomeOfCaller = 404, "No such home among the caller's";
    NoSuchRoom = 404, "No such room (or not one the caller sees)";
    NoSuchDevice = 404, "No such device (or not one the caller sees)";
    NoSuchVirtualDevice = 404, "No such virtual device (or not one the caller sees)";
    NoSuchIntegration = 404, "No such integration (or not one the caller sees)";
    NoSuchEndpoint = 404, "No such endpoint (or not one the caller sees)";
    NoSuchRoutine = 404, "No such routine (or not the caller's)";
    NoSuchScript = 404, "No such tenant or script";
    NoSuchRun = 404, "No such tenant or run";
    NoSuchHouseholdOrMember = 404, "No such household or member";
    NoSuchWebhookEndpoint = 404, "No such endpoint";
    NoSuchKey = 404, "No such key";
    NoSuchConnector = 404, "No such connector of the developer";
    NoSuchVersion = 404, "No such version of the developer";
    NotPlatformStaff = 404, "Not platform staff";
    NoSuchDeveloperForStaff = 404, "No such developer, or not platform staff";
    NoSuchVersionForStaff = 404, "No such version, or not platform staff";

    // States and limits.
    RoutineChanged = 409, "The routine changed meanwhile";
    HomeArmed = 409, "The home is armed or its outputs are not restored yet: what to do first";
    LinkSpent = 410, "Unknown, spent or expired link";
    InvitationLinkSpent = 410, "The link is unknown, spent, withdrawn or expired (one answer for all)";
    StreamElsewhere = 421, "This host cannot stream (a hosted stack's HTTP API): `location` is the same request on the stream's own host (the stack's EventStreamUrl)";
    TooManyFailedAttempts = 429, "Too many failed attempts";
    TooManyWrongCodes = 429, "Too many wrong codes";
    TooManyInvitationMails = 429, "The daily budget of invitation mails is spent: 5 a day to one address (from every household), 50 a day from one household; `too-many-mails`, with Retry-After";
    RequestsQuotaSpent = 429, "Called with a key whose developer's REQUESTS quota is spent";
    TooManyStreams = 429, "The caller already holds its cap of open streams (5 unless configured): the RateLimit fields name the `streams` policy and Retry-After when a slot frees at the latest";
    ConnectorUnreachable = 502, "The connector's server could not be reached or broke the protocol";
}
