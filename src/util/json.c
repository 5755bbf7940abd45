/* JSON helpers (util/json.h). */
#include <stdlib.h>
#include <string.h>

#include "util/json.h"
#include "util/utf8.h"

json_t *krl_json_text(const char *s)
{
	char *c = strdup(s ? s : "");
	if (!c)
		return NULL;
	krl_utf8_scrub(c);
	json_t *j = json_string(c);
	free(c);
	return j;
}
