import { useEffect, useState } from 'react';
import { getToken, setTokens } from './api/client';
import { StaleReferenceBanner } from './components/StaleReferenceBanner';
import { go, useHashRoute } from './hooks/useHashRoute';
import { EditorView } from './views/EditorView';
import { FlowListView } from './views/FlowListView';
import { InstallerView } from './views/InstallerView';
import { JobsView } from './views/JobsView';
import { LiveView } from './views/LiveView';
import { LoginView } from './views/LoginView';
import { McpView } from './views/McpView';

/** The studio shell: login, then flows, editor, live view, jobs, installer and MCP pages by hash route. */
export function App() {
  const [loggedIn, setLoggedIn] = useState(Boolean(getToken()));
  const route = useHashRoute();
  useEffect(() => {
    const onLogout = () => setLoggedIn(false);
    window.addEventListener('wiflow:logout', onLogout);
    return () => window.removeEventListener('wiflow:logout', onLogout);
  }, []);
  if (!loggedIn) return <LoginView onLoggedIn={() => (setLoggedIn(true), route.length === 0 && go('flows'))} />;
  const [page, id] = route;
  return (
    <div className="wf-app">
      <nav className="wf-nav">
        <strong>wiflow</strong>
        <a href="#/flows" className={page === 'flows' || page === 'mcp' || !page ? 'active' : ''} data-testid="nav-flows">Flows</a>
        <a href="#/live" className={page === 'live' ? 'active' : ''} data-testid="nav-live">Live</a>
        <a href="#/jobs" className={page === 'jobs' ? 'active' : ''} data-testid="nav-jobs">Jobs</a>
        <a href="#/installer" className={page === 'installer' ? 'active' : ''} data-testid="nav-installer">Installer</a>
        <span className="spacer" />
        <button onClick={() => (setTokens(null), setLoggedIn(false))}>Log out</button>
      </nav>
      {page === 'installer' ? null : <StaleReferenceBanner />}
      {page === 'flows' && id ? <EditorView key={id} flowId={id} /> : page === 'live' ? <LiveView /> : page === 'jobs' ? <JobsView /> : page === 'installer' ? <InstallerView /> : page === 'mcp' && id ? <McpView projectId={id} /> : <FlowListView />}
    </div>
  );
}
