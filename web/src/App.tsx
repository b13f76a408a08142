import { useEffect } from 'react';
import { AuthProvider, useAuth } from './auth';
import { ConfirmProvider } from './components/confirm';
import { ToastProvider } from './components/toast';
import { EmptyState, Spinner } from './components/ui';
import { AgentsPage } from './pages/AgentsPage';
import { AuthPage } from './pages/AuthPage';
import { ContractPage } from './pages/ContractPage';
import { DataPage } from './pages/DataPage';
import { EndpointPage } from './pages/EndpointPage';
import { KeysPage } from './pages/KeysPage';
import { ProjectPage } from './pages/ProjectPage';
import { ProjectsPage } from './pages/ProjectsPage';
import { RequestsPage } from './pages/RequestsPage';
import { Link, matchRoute, paths, usePath } from './router';
import { RULE_LIMITS } from './types';

const PLAN_NAMES = { free: 'Free', pro: 'Pro', business: 'Business', unlimited: 'Unlimited' } as const;

function Header() {
  const { user, signOut } = useAuth();
  return (
    <header className="topbar">
      <div className="topbar-inner">
        <Link href={paths.projects()} className="brand">
          <span className="brand-mark" aria-hidden="true">
            M
          </span>
          <span className="brand-name">Mockyard</span>
        </Link>
        {user && (
          <div className="account">
            <span className="account-email" title={user.email}>
              {user.email}
            </span>
            <span className={`plan plan-${user.plan}`} title={`${RULE_LIMITS[user.plan]} rules per endpoint`}>
              {PLAN_NAMES[user.plan] ?? user.plan} plan
              <span className="plan-detail">
                {' · '}
                {user.plan === 'unlimited' ? 'no rule limit' : `${RULE_LIMITS[user.plan] ?? '?'} rules/endpoint`}
              </span>
            </span>
            <Link href={paths.keys()} className="btn btn-small">
              API keys
            </Link>
            <Link href={paths.agents()} className="btn btn-small">
              Agents
            </Link>
            <button type="button" className="btn btn-small" onClick={() => void signOut()}>
              Sign out
            </button>
          </div>
        )}
      </div>
    </header>
  );
}

function Routes() {
  const path = usePath();
  const route = matchRoute(path);
  useEffect(() => {
    if (route.name === 'projects') document.title = 'Projects · Mockyard';
  }, [route.name]);
  switch (route.name) {
    case 'projects':
      return <ProjectsPage />;
    case 'project':
      return <ProjectPage projectId={route.projectId} />;
    case 'endpoint':
      return <EndpointPage projectId={route.projectId} endpointId={route.endpointId} />;
    case 'requests':
      return <RequestsPage projectId={route.projectId} />;
    case 'data':
      return <DataPage projectId={route.projectId} />;
    case 'contract':
      return <ContractPage projectId={route.projectId} />;
    case 'keys':
      return <KeysPage />;
    case 'agents':
      return <AgentsPage />;
    default:
      return (
        <EmptyState title="Page not found" action={<Link href={paths.projects()}>Back to your projects</Link>}>
          There is nothing at <code>{path}</code>.
        </EmptyState>
      );
  }
}

function Shell() {
  const { user, checking } = useAuth();
  return (
    <>
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <Header />
      <main id="main" className="container" tabIndex={-1}>
        {checking ? <Spinner label="Restoring your session…" /> : user ? <Routes /> : <AuthPage />}
      </main>
    </>
  );
}

export function App() {
  return (
    <ToastProvider>
      <ConfirmProvider>
        <AuthProvider>
          <Shell />
        </AuthProvider>
      </ConfirmProvider>
    </ToastProvider>
  );
}
