/**
 * The dashboard's way to the control plane: the typed client of src/client/control-client.ts
 * (the same one partners use, its operations derived from the control plane's declarations),
 * over this page's origin, with the admin token kept in this tab's sessionStorage. When the control plane answers 401, the token dialog of the shell
 * asks for SANDBOX_ADMIN_TOKEN, or a partner's client credentials (partner-session.ts: the
 * dashboard then shows that partner only), and the call is made again.
 */
import { type ControlClient, ControlPlaneError, createControlClient } from '../../client/control-client.js';
import { byId } from './dom.js';
import { asPartner, forgetPartner, signIn, storedPartner } from './partner-session.js';

const TOKEN_KEY = 'partnership-sandbox.admin-token';

const storedToken = () => sessionStorage.getItem(TOKEN_KEY) ?? undefined;

/**
 * The partner this tab is signed in as (its client credentials), if any: the control plane then
 * acts for it alone, and the forms say so instead of "every partner".
 */
export const signedInPartner = (): string | undefined =>
  storedToken() === undefined ? undefined : storedPartner()?.parent;

let client: { token: string | undefined; control: ControlClient } | undefined;
function clientFor(token: string | undefined): ControlClient {
  if (!client || client.token !== token) {
    const control = createControlClient(location.origin, token ? { token } : {});
    const partner = token === undefined ? undefined : storedPartner();
    client = { token, control: partner ? asPartner(control, partner.parent) : control };
  }
  return client.control;
}

/** A partner's token expired (its clock moved on): a new one from its credentials, once. */
async function renewPartner(): Promise<boolean> {
  const partner = storedPartner();
  if (!partner) return false;
  const renewed = await signIn(partner.clientId, partner.clientSecret);
  if (!('token' in renewed)) return false;
  sessionStorage.setItem(TOKEN_KEY, renewed.token);
  return true;
}

let tokenWait: Promise<void> | null = null;

/** True while the token dialog is open (polling waits). */
export const askingForToken = () => tokenWait !== null;

/** Runs one control-plane call; on 401 asks for the token and runs it again. */
export async function control<T>(call: (client: ControlClient) => Promise<T>): Promise<T> {
  for (;;) {
    const token = storedToken();
    try {
      return await call(clientFor(token));
    } catch (err) {
      if (!(err instanceof ControlPlaneError) || err.status !== 401) throw err;
      if (token !== undefined && token !== storedToken()) continue; // changed meanwhile
      if (token !== undefined && (await renewPartner())) continue;
      if (token !== undefined) forgetToken();
      showForgetToken();
      await askToken(token !== undefined);
    }
  }
}

function askToken(rejected: boolean): Promise<void> {
  tokenWait ??= new Promise<void>((resolve) => {
    const dialog = byId<HTMLDialogElement>('token-dialog');
    const input = byId<HTMLInputElement>('token-input');
    const error = byId('token-error');
    error.textContent = rejected ? 'That token was refused (401). Try again.' : '';
    error.hidden = !rejected;
    input.value = '';
    byId<HTMLFormElement>('token-form').onsubmit = (event) => {
      event.preventDefault();
      const value = input.value.trim();
      if (!value) return;
      forgetPartner(); // the admin token: the dashboard shows every partner again
      sessionStorage.setItem(TOKEN_KEY, value);
      dialog.close();
      tokenWait = null;
      showForgetToken();
      resolve();
    };
    partnerSignIn(dialog, () => {
      tokenWait = null;
      resolve();
    });
    dialog.oncancel = (event) => event.preventDefault();
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
  return tokenWait;
}

/** The dialog's second form: a partner's client credentials, exchanged for its token. */
function partnerSignIn(dialog: HTMLDialogElement, done: () => void): void {
  const error = byId('partner-error');
  error.hidden = true;
  byId<HTMLFormElement>('partner-form').onsubmit = async (event) => {
    event.preventDefault();
    const clientId = byId<HTMLInputElement>('partner-client-id').value.trim();
    const secret = byId<HTMLInputElement>('partner-client-secret').value;
    if (!clientId || !secret) return;
    const signed = await signIn(clientId, secret);
    if (!('token' in signed)) {
      error.textContent = signed.problem;
      error.hidden = false;
      return;
    }
    sessionStorage.setItem(TOKEN_KEY, signed.token);
    byId<HTMLInputElement>('partner-client-secret').value = '';
    dialog.close();
    showForgetToken();
    done();
  };
}

/** The header's "Forget token" button shows while a token is kept ("Sign out" for a partner, named). */
export function showForgetToken(): void {
  const button = byId('forget-token');
  const partner = storedToken() === undefined ? undefined : storedPartner();
  button.hidden = storedToken() === undefined;
  button.textContent = partner ? `Sign out ${partner.parent}` : 'Forget token';
  if (partner) document.body.dataset.partner = partner.parent;
  else delete document.body.dataset.partner;
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  forgetPartner();
  showForgetToken();
}
