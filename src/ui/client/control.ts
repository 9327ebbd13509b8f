/**
 * The dashboard's way to the control plane: the typed client of src/client/control.ts
 * (the same one partners use, its operations derived from the control plane's declarations),
 * over this page's origin, with the admin token kept in this tab's sessionStorage. When the control plane answers 401, the token dialog of the shell
 * asks for SANDBOX_ADMIN_TOKEN and the call is made again.
 */
import { type ControlClient, ControlPlaneError, createControlClient } from '../../client/control.js';
import { byId } from './dom.js';

const TOKEN_KEY = 'partnership-sandbox.admin-token';

const storedToken = () => sessionStorage.getItem(TOKEN_KEY) ?? undefined;

let client: { token: string | undefined; control: ControlClient } | undefined;
function clientFor(token: string | undefined): ControlClient {
  if (!client || client.token !== token) {
    client = { token, control: createControlClient(location.origin, token ? { adminToken: token } : {}) };
  }
  return client.control;
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
      if (token !== undefined) sessionStorage.removeItem(TOKEN_KEY);
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
      sessionStorage.setItem(TOKEN_KEY, value);
      dialog.close();
      tokenWait = null;
      showForgetToken();
      resolve();
    };
    dialog.oncancel = (event) => event.preventDefault();
    if (!dialog.open) dialog.showModal();
    input.focus();
  });
  return tokenWait;
}

/** The header's "Forget token" button shows while a token is kept. */
export function showForgetToken(): void {
  byId('forget-token').hidden = storedToken() === undefined;
}

export function forgetToken(): void {
  sessionStorage.removeItem(TOKEN_KEY);
  showForgetToken();
}
