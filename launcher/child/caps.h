#ifndef WICKET_CHILD_CAPS_H
#define WICKET_CHILD_CAPS_H

#include "base/session.h"

/* caps.c */
int caps_drop_bounding(void);
int caps_drop_all(void);

#endif
