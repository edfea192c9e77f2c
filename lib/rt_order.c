/* rt_order: ordered runs through the runner's own driver (rt_order_ops). */
#include <stdlib.h>

#include "rt_order.h"
#include "rt_util.h"

struct rt_order {
	const struct rt_order_ops *ops;
	void *h;
};

int
rt_order_needed(const rt_runner *r)
{
	return r->order != NULL;
}

rt_order *
rt_order_open(const rt_runner *r, const char *cwd, const char *victim, char *why,
    size_t size)
{
	rt_order *o;
	void *h;

	if (!r->order) {
		snprintf(why, size, "%s runs the tests in the order its command names", r->name);
		return NULL;
	}
	if (!(h = r->order->open(cwd, victim, why, size)))
		return NULL;
	o = rt_xcalloc(1, sizeof *o);
	o->ops = r->order;
	o->h = h;
	return o;
}

int
rt_order_member(const rt_order *o, const char *id, char *why, size_t size)
{
	return o->ops->member(o->h, id, why, size);
}

int
rt_order_write(const rt_order *o, char *const *order, char *why, size_t size)
{
	return o->ops->write(o->h, order, why, size);
}

void
rt_order_map(const rt_order *o, rt_case_set *set)
{
	o->ops->map(o->h, set);
}

json_t *
rt_order_ran(const rt_order *o, const char *out)
{
	return o->ops->ran(o->h, out);
}

int
rt_order_same(const rt_order *o, json_t *ran, char *const *order)
{
	return o->ops->same(ran, order);
}

const char *
rt_order_selector(const rt_order *o)
{
	return o->ops->selector(o->h);
}

const char *
rt_order_cwd(const rt_order *o)
{
	return o->ops->cwd(o->h);
}

const char *
rt_order_where(const rt_order *o)
{
	return o->ops->where(o->h);
}

const char *
rt_order_cannot(const rt_runner *r)
{
	return r->order ? r->order->cannot : "";
}

const char *
rt_order_how(const rt_order *o)
{
	return o->ops->how;
}

void
rt_order_close(rt_order *o)
{
	if (!o)
		return;
	o->ops->close(o->h);
	free(o);
}
