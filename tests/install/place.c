/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A C program built against the INSTALLED numaplace (pkg-config) by install_test.sh:
   loads a capabilities file, places a domain file with hw:numa_nodes=2, prints the
   placement JSON; then checks that a guest that cannot fit gives NP_ERR_NO_FIT with a
   message. Exit 0 only when all of it behaves. */
#include <numaplace.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char* slurp(const char* path) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return NULL;
  fseek(f, 0, SEEK_END);
  long size = ftell(f);
  fseek(f, 0, SEEK_SET);
  char* text = malloc((size_t)size + 1);
  if (text != NULL && fread(text, 1, (size_t)size, f) != (size_t)size) {
    free(text);
    text = NULL;
  }
  if (text != NULL) text[size] = '\0';
  fclose(f);
  return text;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s CAPABILITIES.xml DOMAIN.xml\n", argv[0]);
    return 2;
  }
  char* caps = slurp(argv[1]);
  char* domain = slurp(argv[2]);
  if (caps == NULL || domain == NULL) return 2;

  np_host* host = NULL;
  np_error* error = NULL;
  if (np_host_from_capabilities_xml(caps, &host, &error) != NP_OK) {
    fprintf(stderr, "host: %s: %s\n", np_error_name(error), np_error_message(error));
    np_error_free(error);
    return 1;
  }
  const np_pair specs[] = {{"hw:numa_nodes", "2"}};
  np_result* result = NULL;
  np_status status = np_place(host, domain, specs, 1, NULL, 0, NULL, 0, &result, &error);
  if (status != NP_OK) {
    fprintf(stderr, "place: %s: %s\n", np_error_name(error), np_error_message(error));
    np_error_free(error);
    np_host_free(host);
    return 1;
  }
  printf("numaplace %s placed=%d %s\n", np_version(), np_result_placed(result), np_result_placement_json(result));
  int ok = np_result_placed(result) == 1 && strstr(np_result_xml(result), "<numatune>") != NULL;
  np_result_free(result);

  const np_pair too_many[] = {{"hw:numa_nodes", "4"}};
  status = np_place(host, domain, too_many, 1, NULL, 0, NULL, 0, &result, &error);
  printf("4 cells on this host: %s %s: %s\n", np_status_name(status), np_error_name(error), np_error_message(error));
  ok = ok && status == NP_ERR_NO_FIT && result == NULL && strcmp(np_error_name(error), "NoFit") == 0;
  np_error_free(error);

  np_host_free(host);
  free(caps);
  free(domain);
  return ok ? 0 : 1;
}
