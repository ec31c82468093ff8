import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import './styles.css';
import { App } from './app.js';
import { beginSignIn, finishSignIn } from './auth/pkce.js';
import { type ConsoleSession, openSession, storeTokens } from './auth/session.js';
import { BASE_PATH, type ConsoleConfig, readConfig } from './config.js';
import { navigate } from './router.js';
import { describeError } from './ui/errors.js';

type Start = { state: 'starting' } | { state: 'signed-in'; session: ConsoleSession } | { state: 'signed-out'; message?: string };

/**
 * The console's start: finish a sign-in on the callback address, else open the tab's session,
 * else sign in (the authorization code with PKCE, like any other client).
 */
function Console(props: { config: ConsoleConfig }) {
  const { config } = props;
  const [start, setStart] = useState<Start>({ state: 'starting' });
  useEffect(() => {
    void (async () => {
      try {
        if (location.pathname === new URL(config.redirectUri).pathname) {
          const { tokens, returnTo } = await finishSignIn(config, new URL(location.href));
          storeTokens(tokens);
          navigate(returnTo, { replace: true });
        }
        const session = await openSession(config);
        if (session) return setStart({ state: 'signed-in', session });
        if (sessionStorage.getItem('rdp-console-signed-out')) return setStart({ state: 'signed-out' });
        await beginSignIn(config, `${location.pathname}${location.search}`);
      } catch (error) {
        setStart({ state: 'signed-out', message: describeError(error) });
      }
    })();
  }, [config]);

  if (start.state === 'starting') return <p class="loading">Signing in…</p>;
  if (start.state === 'signed-out') {
    return (
      <main id="main" class="signed-out">
        <h1>Reality Data Platform console</h1>
        {start.message ? (
          <p class="notice error" role="alert">
            {start.message}
          </p>
        ) : (
          <p>You are signed out of the console.</p>
        )}
        <button
          type="button"
          onClick={() => {
            sessionStorage.removeItem('rdp-console-signed-out');
            void beginSignIn(config, BASE_PATH);
          }}
        >
          Sign in
        </button>
      </main>
    );
  }
  return (
    <App
      session={start.session}
      onSignOut={() => {
        start.session.signOut();
        sessionStorage.setItem('rdp-console-signed-out', '1');
        setStart({ state: 'signed-out' });
      }}
    />
  );
}

const root = document.getElementById('rdp-console');
if (root) {
  root.textContent = '';
  render(<Console config={readConfig()} />, root);
}
