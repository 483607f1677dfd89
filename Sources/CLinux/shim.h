#ifndef UNDERSTUDY_CLINUX_SHIM_H
#define UNDERSTUDY_CLINUX_SHIM_H
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/signalfd.h>
#include <iconv.h>
#endif
