/** The console's entry: icons first, then the page the address names. */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";

import { session } from "./api.js";
import { loadIcons } from "./icons.js";
import { AccountPage, SignUp, VerifyEmail } from "./account.js";
import { ConnectorsPage } from "./connectors.js";
import { EventsPage, KeysPage, SandboxHome, SimulatorPage, WebhooksPage } from "./developer.js";
import { InvitationPage, takeInvitationToken } from "./invitation.js";
import { ForgotPassword, ResetPassword, takeResetLink } from "./password.js";
import { Header, Homes, OverviewPage, RoomPage, SignIn } from "./pages.js";
import { PeoplePage } from "./people.js";
import { RoutinesPage } from "./routines.js";
import { SecurityPage } from "./security.js";
import { StaffArea } from "./staff.js";

/** The token of the invitation link this page was opened with (taken out
 * of the address before anything else runs). */
const invitationToken = takeInvitationToken();
/** Likewise the reset link's token (and whose sign-in it is). */
const resetLink = takeResetLink();

function route(hash: string) {
  const [path = "", query = ""] = hash.replace(/^#\/?/, "").split("?", 2);
  const parts = path.split("/").filter(Boolean);
  const current = session();
  if (parts[0] === "developer") {
    if (parts[1] === "signup") return <SignUp />;
    if (parts[1] === "forgot") return <ForgotPassword kind="developer" />;
    if (parts[1] === "verify") return <VerifyEmail token={new URLSearchParams(query).get("token") ?? ""} />;
    if (current?.kind !== "developer" || parts[1] === "signin") return <SignIn kind="developer" />;
    switch (parts[1]) {
      case "webhooks":
        return <WebhooksPage />;
      case "simulator":
        return <SimulatorPage />;
      case "events":
        return <EventsPage />;
      case "account":
        return <AccountPage />;
      case "connectors":
        return <ConnectorsPage />;
      case "home":
        return <SandboxHome />;
      default:
        return <KeysPage />;
    }
  }
  if (parts[0] === "forgot") return <ForgotPassword kind="household" />;
  if (!current || parts[0] === "signin") return <SignIn kind="household" />;
  // Platform staff sign in as household people; the area checks the role.
  if (parts[0] === "staff") {
    if (current.kind !== "household") return <SignIn kind="household" />;
    return <StaffArea parts={parts.slice(1)} query={new URLSearchParams(query)} />;
  }
  // A home's pages serve either kind of session: a developer's sandbox home
  // is a household like any other.
  if (parts[0] === "homes" && parts.length === 3) {
    return <OverviewPage tenantId={parts[1]!} propertyId={parts[2]!} />;
  }
  if (parts[0] === "homes" && parts.length === 4) {
    const home = { tenantId: parts[1]!, propertyId: parts[2]! };
    if (parts[3] === "routines") return <RoutinesPage {...home} />;
    if (parts[3] === "people") return <PeoplePage {...home} />;
    if (parts[3] === "security") return <SecurityPage {...home} />;
  }
  if (parts[0] === "homes" && parts.length === 5 && parts[3] === "rooms") {
    return <RoomPage tenantId={parts[1]!} propertyId={parts[2]!} roomId={parts[4]!} />;
  }
  if (current.kind !== "household") return <SignIn kind="household" />;
  return <Homes />;
}

function App() {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    window.addEventListener("hashchange", changed);
    return () => window.removeEventListener("hashchange", changed);
  }, []);
  return (
    <>
      <Header />
      {/* A link within the page (a hash) leaves the invitation. */}
      {invitationToken !== null && !hash ? (
        <InvitationPage token={invitationToken} />
      ) : resetLink !== null && !hash ? (
        <ResetPassword {...resetLink} />
      ) : (
        route(hash)
      )}
    </>
  );
}

loadIcons().finally(() => render(<App />, document.getElementById("app")!));
