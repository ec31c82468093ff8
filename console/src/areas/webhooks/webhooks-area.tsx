import type { ConsoleArea } from '../area.js';
import { WebhookView } from './webhook-view.js';
import { managesWebhooks } from './webhooks-access.js';
import { WebhooksView } from './webhooks-view.js';
import './webhooks.css';

/** Webhooks for administrators: the organization's endpoints, each with its delivery log. */
export const webhooksArea: ConsoleArea = {
  routes: [
    { pattern: '/webhooks', view: () => <WebhooksView /> },
    {
      pattern: '/webhooks/:webhookId',
      view: (params) => <WebhookView key={params.webhookId} webhookId={params.webhookId as string} />,
    },
  ],
  nav: [{ label: 'Webhooks', href: '/webhooks', visible: managesWebhooks }],
};
