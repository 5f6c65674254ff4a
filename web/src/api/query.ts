import { QueryClient } from "@tanstack/react-query";
import { ApiError } from "./client";

/** One client for the app: client errors (4xx) are not retried, they will not change by retrying. */
export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      staleTime: 30_000,
      refetchOnWindowFocus: false,
      retry: (failures, error) => !(error instanceof ApiError && error.status < 500) && failures < 2,
    },
  },
});
