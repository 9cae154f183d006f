import { useState, type FormEvent } from 'react';
import { login } from '../api/client';

/** Log in with the same users and tokens as the APIs. */
export function LoginView({ onLoggedIn }: { onLoggedIn: () => void }) {
  const [username, setUsername] = useState('admin');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<string | null>(null);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setError(null);
    try {
      await login(username, password);
      onLoggedIn();
    } catch (err) {
      setError((err as Error).message);
    }
  };
  return (
    <form className="wf-login" onSubmit={(e) => void submit(e)} data-testid="login-form">
      <h1>wiflow studio</h1>
      <label>
        <span>User</span>
        <input name="username" autoComplete="username" value={username} onChange={(e) => setUsername(e.target.value)} />
      </label>
      <label>
        <span>Password</span>
        <input name="password" type="password" autoComplete="current-password" value={password} onChange={(e) => setPassword(e.target.value)} />
      </label>
      <button type="submit">Log in</button>
      {error ? <p className="error" data-testid="login-error">{error}</p> : null}
      <p className="muted">The admin password was printed once when the server first started (or set with WIFLOW_ADMIN_PASSWORD).</p>
    </form>
  );
}
