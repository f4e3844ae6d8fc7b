// A core/v1 Event as Flotilla reads it back (explain's latest Events, the dashboard's warnings):
// only the fields either shows.
export interface CoreEvent {
  metadata: { namespace?: string; name?: string; resourceVersion?: string; creationTimestamp?: string };
  involvedObject?: { apiVersion?: string; kind?: string; namespace?: string; name?: string };
  type?: string;
  reason?: string;
  message?: string;
  count?: number;
  lastTimestamp?: string;
  eventTime?: string;
  source?: { component?: string };
  reportingComponent?: string;
}
