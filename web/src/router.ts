import { createRouter, createWebHistory } from 'vue-router';
import { handleUnauthorised } from './api';
import { BASE } from './base';
import { PAGES } from './pages';
import { refreshSession, session } from './session';

export const router = createRouter({
  history: createWebHistory(`${BASE}/`),
  routes: [
    { path: '/login', name: 'login', component: () => import('./pages/LoginPage.vue'), meta: { public: true } },
    ...PAGES.map((page) => ({ path: `/${page.path}`, name: page.name, component: page.component })),
    { path: '/:rest(.*)*', name: 'not-found', component: () => import('./pages/NotFoundPage.vue') },
  ],
});

/** Where the login page goes afterwards: only a page of this console, never the login page. */
export function safeNext(next: unknown): string {
  if (typeof next !== 'string' || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/login'))
    return '/';
  return next;
}

router.beforeEach(async (to) => {
  if (to.meta.public) return true;
  if (!session.known || !session.authenticated) {
    try {
      await refreshSession();
    } catch {
      // Unreachable console: the page shows its own error.
      return true;
    }
  }
  if (!session.authenticated) return { name: 'login', query: { next: to.fullPath } };
  return true;
});

handleUnauthorised(() => {
  session.authenticated = false;
  const current = router.currentRoute.value;
  if (current.name !== 'login')
    void router.push({ name: 'login', query: { next: current.fullPath, reason: 'expired' } });
});
