import type { z } from "zod";
import { type EventEnvelope, looseEvents } from "../spec/events.js";
import type { ApiClient } from "./client.js";
import { seg } from "./client.js";

export type EventTypeInfo = z.infer<typeof looseEvents.EventTypeInfo>;

export function listEvents(
  c: ApiClient,
  q: { after?: string | undefined; type?: string | undefined; limit?: number | undefined },
): Promise<{ items: EventEnvelope[]; nextCursor: string | null }> {
  return c.call({
    method: "GET",
    path: "/events",
    query: q,
    retry: "read",
    schema: looseEvents.EventPage as never,
  });
}

export function getEvent(c: ApiClient, id: string): Promise<EventEnvelope> {
  return c.call({
    method: "GET",
    path: `/events/${seg(id)}`,
    retry: "read",
    schema: looseEvents.Envelope as never,
  });
}

export function eventTypes(c: ApiClient): Promise<EventTypeInfo[]> {
  return c.call({
    method: "GET",
    path: "/events/types",
    retry: "read",
    schema: looseEvents.EventTypes as never,
  });
}
