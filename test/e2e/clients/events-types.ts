// The tasks example's events as typed by openapi-typescript (api.d.ts) and orval (client.ts), default options: each
// types an event as one of the resources' events, told apart by `resource`, whose `data` is that resource's record.
import type { components } from './api.js';
import type { Event as OrvalEvent } from './client.js';

type Event = components['schemas']['Event'];

/** A task's title, read from its event once `resource` says it is a task's (a type error if the union were lost). */
export function taskTitle(event: Event): string | undefined {
  if (event.resource !== 'tasks') return undefined;
  const type: `tasks.${'created' | 'updated' | 'deleted' | 'complete' | 'reschedule' | 'bulk-import'}` = event.type;
  return type === 'tasks.deleted' ? undefined : event.data?.title;
}

export function orvalTaskTitle(event: OrvalEvent): string | undefined {
  return event.resource === 'tasks' ? event.data?.title : undefined;
}

export function personTitle(event: Event): unknown {
  if (event.resource !== 'people') return undefined;
  // @ts-expect-error: a person's event holds a person, which has no title
  return event.data?.title;
}
