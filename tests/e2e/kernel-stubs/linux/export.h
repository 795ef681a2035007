#define EXPORT_SYMBOL(name)
