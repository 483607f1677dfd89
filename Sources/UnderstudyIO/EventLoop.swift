#if canImport(Glibc)
import Glibc
#endif
import CLinux
import Synchronization

/// One thread running an epoll loop. Everything registered with it (listeners, connections, timers)
/// is touched only on that thread; other threads hand it work with `execute`.
///
/// `@unchecked Sendable`: the only state touched from other threads is the task queue (one Mutex)
/// and the thread id (an Atomic); everything else is confined to the loop thread.
public final class EventLoop: @unchecked Sendable, CustomStringConvertible {
    private struct TaskQueue {
        var tasks: [@Sendable () -> Void] = []
        var wakeupPending = false
        var closed = false
    }
    private struct Slot {
        var generation: UInt32
        var target: any Selectable
    }
    private struct TimerEntry {
        var deadline: UInt64
        var id: UInt64
    }
    private enum State { case running, quiescing, stopped }

    /// For thread names and logs.
    public let index: Int
    private let epollFD: Int32
    private let wakeFD: Int32
    private let timerFD: Int32
    private let queue = Mutex(TaskQueue())
    private let threadID = Atomic<UInt>(0)
    private let nextTimerID = Atomic<UInt64>(1)

    // Confined to the loop thread.
    private var slots: [Slot?] = []
    private var registrationCount = 0
    /// Descriptors registered now (loop thread only; for tests).
    var registeredCount: Int { registrationCount }
    private var nextGeneration: UInt32 = 1
    private var timerHeap: [TimerEntry] = []
    private var timerTasks: [UInt64: () -> Void] = [:]
    private var armedDeadline: UInt64 = .max
    private var state = State.running
    private var localTasks: [@Sendable () -> Void] = []
    /// One read buffer per loop, reused by every connection's reads.
    let readBuffer: UnsafeMutableRawBufferPointer
    static let readBufferSize = 64 * 1024

    private static let internalGeneration: UInt64 = 0

    init(index: Int) throws(IOError) {
        self.index = index
        epollFD = try systemCallNonBlocking("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        let nonBlockCloexec: Int32 = 0o4000 | 0o2000000   // O_NONBLOCK | O_CLOEXEC (EFD_/TFD_ share them)
        let epfd = epollFD
        do {
            wakeFD = try systemCallNonBlocking("eventfd") { eventfd(0, nonBlockCloexec) }
        } catch {
            closeDescriptor(epfd); throw error
        }
        let wfd = wakeFD
        do {
            timerFD = try systemCallNonBlocking("timerfd_create") { timerfd_create(CLOCK_MONOTONIC, nonBlockCloexec) }
        } catch {
            closeDescriptor(epfd); closeDescriptor(wfd); throw error
        }
        readBuffer = .allocate(byteCount: EventLoop.readBufferSize, alignment: 16)
        do {
            try epollControl(EPOLL_CTL_ADD, fd: wakeFD, events: EpollEvents.input, data: UInt64(UInt32(bitPattern: wakeFD)))
            try epollControl(EPOLL_CTL_ADD, fd: timerFD, events: EpollEvents.input, data: UInt64(UInt32(bitPattern: timerFD)))
        } catch {
            closeDescriptors(); throw error
        }
    }

    deinit {
        readBuffer.deallocate()
    }

    public var description: String { "EventLoop(\(index))" }

    // MARK: Threads

    /// True on this loop's thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .relaxed) == UInt(pthread_self())
    }

    /// Runs `task` on the loop thread, soon. Callable from any thread. Dropped if the loop has stopped.
    public func execute(_ task: @escaping @Sendable () -> Void) {
        if inEventLoop {
            localTasks.append(task)
            return
        }
        let needsWakeup: Bool = queue.withLock { q in
            if q.closed { return false }
            q.tasks.append(task)
            if q.wakeupPending { return false }
            q.wakeupPending = true
            return true
        }
        if needsWakeup { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        // EAGAIN means the counter is already non-zero: the loop will wake anyway.
        _ = try? systemCall("write(eventfd)") { Glibc.write(wakeFD, &one, 8) }
    }

    // MARK: Timers

    /// Runs `task` on the loop thread after `delay` (CLOCK_MONOTONIC). Callable from any thread.
    @discardableResult
    public func schedule(after delay: Duration, _ task: @escaping @Sendable () -> Void) -> Scheduled {
        let id = nextTimerID.wrappingAdd(1, ordering: .relaxed).oldValue
        let deadline = Monotonic.now() &+ delay.nanosecondsClamped
        if inEventLoop {
            insertTimer(id: id, deadline: deadline, task)
        } else {
            execute { self.insertTimer(id: id, deadline: deadline, task) }
        }
        return Scheduled(loop: self, id: id)
    }

    /// Loop-thread only: a timer whose task need not be Sendable (it captures confined objects).
    func scheduleConfined(after delay: Duration, _ task: @escaping () -> Void) -> Scheduled {
        precondition(inEventLoop, "scheduleConfined must be called on the loop thread")
        let id = nextTimerID.wrappingAdd(1, ordering: .relaxed).oldValue
        insertTimer(id: id, deadline: Monotonic.now() &+ delay.nanosecondsClamped, task)
        return Scheduled(loop: self, id: id)
    }

    func cancelTimer(id: UInt64) {
        if inEventLoop {
            removeTimer(id: id)
        } else {
            execute { self.removeTimer(id: id) }
        }
    }

    /// A cancelled timer's heap entry stays until it reaches the top. Connections re-arm their
    /// timeout on every command (an SMTP timeout is minutes long), so under sustained load those
    /// entries would pile up by the million: once they outnumber live timers, the heap is rebuilt
    /// from the live ones (linear, and rare enough to cost O(1) per cancel).
    private func removeTimer(id: UInt64) {
        guard timerTasks.removeValue(forKey: id) != nil else { return }
        guard timerHeap.count > 64, timerHeap.count > 2 * timerTasks.count else { return }
        timerHeap.removeAll { timerTasks[$0.id] == nil }
        for index in stride(from: timerHeap.count / 2 - 1, through: 0, by: -1) { siftDown(index) }
    }

    /// Whether the timer `id` has neither run nor been cancelled (on the loop).
    func hasPendingTimer(id: UInt64) -> Bool { timerTasks[id] != nil }

    /// Heap entries, live or cancelled: for tests of the bound above.
    var timerHeapCount: Int { timerHeap.count }

    private func insertTimer(id: UInt64, deadline: UInt64, _ task: @escaping () -> Void) {
        guard state != .stopped else { return }
        timerTasks[id] = task
        timerHeap.append(TimerEntry(deadline: deadline, id: id))
        siftUp(timerHeap.count - 1)
        if deadline < armedDeadline { armTimer(deadline) }
    }

    private func armTimer(_ deadline: UInt64) {
        armedDeadline = deadline
        var spec = itimerspec()
        if deadline != .max {
            let d = max(deadline, 1)
            spec.it_value.tv_sec = Int(d / 1_000_000_000)
            spec.it_value.tv_nsec = Int(d % 1_000_000_000)
        }
        // TFD_TIMER_ABSTIME = 1: the deadline is an absolute CLOCK_MONOTONIC time.
        _ = try? systemCallNonBlocking("timerfd_settime") { timerfd_settime(timerFD, 1, &spec, nil) }
    }

    private func runDueTimers() {
        var expirations: UInt64 = 0
        _ = try? systemCall("read(timerfd)") { Glibc.read(timerFD, &expirations, 8) }
        let now = Monotonic.now()
        while let first = timerHeap.first, first.deadline <= now {
            popTimer()
            if let task = timerTasks.removeValue(forKey: first.id) { task() }
        }
        // Drop cancelled entries at the top so the timerfd is not armed for nothing.
        while let first = timerHeap.first, timerTasks[first.id] == nil { popTimer() }
        armTimer(timerHeap.first?.deadline ?? .max)
    }

    private func popTimer() {
        let last = timerHeap.removeLast()
        if !timerHeap.isEmpty {
            timerHeap[0] = last
            siftDown(0)
        }
    }

    private func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            if timerHeap[parent].deadline <= timerHeap[child].deadline { break }
            timerHeap.swapAt(parent, child)
            child = parent
        }
    }

    private func siftDown(_ start: Int) {
        var parent = start
        let count = timerHeap.count
        while true {
            let left = 2 * parent + 1, right = left + 1
            var smallest = parent
            if left < count, timerHeap[left].deadline < timerHeap[smallest].deadline { smallest = left }
            if right < count, timerHeap[right].deadline < timerHeap[smallest].deadline { smallest = right }
            if smallest == parent { return }
            timerHeap.swapAt(parent, smallest)
            parent = smallest
        }
    }

    // MARK: Registrations

    /// Registers `fd` for `events`; returns nothing, the fd + a generation are packed into epoll_data
    /// so an event for a closed fd whose number was reused within the same tick is recognised as stale.
    func register(fd: Int32, events: UInt32, target: any Selectable) throws(IOError) {
        precondition(inEventLoop, "register must be called on the loop thread")
        let index = Int(fd)
        if index >= slots.count { slots.append(contentsOf: repeatElement(nil, count: index + 1 - slots.count)) }
        precondition(slots[index] == nil, "fd \(fd) registered twice")
        let generation = nextGeneration
        nextGeneration = nextGeneration == .max ? 1 : nextGeneration + 1
        try epollControl(EPOLL_CTL_ADD, fd: fd, events: events, data: EventLoop.pack(fd: fd, generation: generation))
        slots[index] = Slot(generation: generation, target: target)
        registrationCount += 1
    }

    /// Changes the interest set of a registered fd (EPOLL_CTL_MOD).
    func reregister(fd: Int32, events: UInt32) throws(IOError) {
        guard let slot = slots[Int(fd)] else { preconditionFailure("fd \(fd) is not registered") }
        try epollControl(EPOLL_CTL_MOD, fd: fd, events: events, data: EventLoop.pack(fd: fd, generation: slot.generation))
    }

    /// Removes `fd` from epoll (call before closing it) and forgets it. With `closing`, the
    /// caller closes it right after, which removes it from the epoll set (sockets here are never
    /// duplicated: accept4 and socket use CLOEXEC), so the EPOLL_CTL_DEL is skipped; events
    /// already fetched for it fail the generation check.
    func deregister(fd: Int32, closing: Bool = false) {
        let index = Int(fd)
        guard index < slots.count, slots[index] != nil else { return }
        if !closing { _ = try? epollControl(EPOLL_CTL_DEL, fd: fd, events: 0, data: 0) }
        slots[index] = nil
        registrationCount -= 1
    }

    private static func pack(fd: Int32, generation: UInt32) -> UInt64 {
        UInt64(UInt32(bitPattern: fd)) | (UInt64(generation) << 32)
    }

    private func epollControl(_ op: Int32, fd: Int32, events: UInt32, data: UInt64) throws(IOError) {
        var event = epoll_event()
        event.events = events
        event.data.u64 = data
        try systemCallNonBlocking("epoll_ctl") { epoll_ctl(epollFD, op, fd, &event) }
    }

    // MARK: Running

    /// Runs the loop on the calling thread until it has shut down. Used by `EventLoopGroup`.
    func run() {
        threadID.store(UInt(pthread_self()), ordering: .relaxed)
        let maxEvents = 256
        let events = UnsafeMutablePointer<epoll_event>.allocate(capacity: maxEvents)
        defer { events.deallocate() }
        while state != .stopped {
            let timeout: Int32 = localTasks.isEmpty ? -1 : 0
            let count: Int32
            do {
                switch try systemCall("epoll_wait", { epoll_wait(epollFD, events, Int32(maxEvents), timeout) }) {
                case .done(let n): count = n
                case .wouldBlock: count = 0
                }
            } catch {
                preconditionFailure("epoll_wait failed: \(error)")
            }
            for i in 0..<Int(count) {
                let event = events[i]
                let data = event.data.u64
                let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: data))
                let generation = UInt32(truncatingIfNeeded: data >> 32)
                if generation == 0 {
                    if fd == wakeFD { drainWakeups() } else if fd == timerFD { runDueTimers() }
                    continue
                }
                let index = Int(fd)
                guard index < slots.count, let slot = slots[index], slot.generation == generation else { continue }
                slot.target.ready(event.events)
            }
            runTasks()
            if state == .quiescing && registrationCount == 0 { state = .stopped }
        }
        // Refuse further tasks, then run those already queued (they may complete promises).
        let remaining = queue.withLock { q in
            q.closed = true
            defer { q.tasks = [] }
            return q.tasks
        }
        for task in localTasks + remaining { task() }
        localTasks = []
        timerTasks = [:]
        timerHeap = []
        closeDescriptors()
        // The thread id may be reused by a later thread: it must not pass for this loop.
        threadID.store(0, ordering: .relaxed)
    }

    private func drainWakeups() {
        var value: UInt64 = 0
        _ = try? systemCall("read(eventfd)") { Glibc.read(wakeFD, &value, 8) }
    }

    private func runTasks() {
        var batch = queue.withLock { q -> [@Sendable () -> Void] in
            q.wakeupPending = false
            if q.tasks.isEmpty { return [] }
            defer { q.tasks = [] }
            return q.tasks
        }
        if !localTasks.isEmpty {
            batch.append(contentsOf: localTasks)
            localTasks.removeAll(keepingCapacity: true)
        }
        for task in batch { task() }
    }

    /// Releases the descriptors of a loop that never ran (group creation failed).
    func closeWithoutRunning() {
        queue.withLock { $0.closed = true }
        state = .stopped
        closeDescriptors()
    }

    private func closeDescriptors() {
        closeDescriptor(timerFD)
        closeDescriptor(wakeFD)
        closeDescriptor(epollFD)
    }

    /// Starts a graceful shutdown: every registration is asked to quiesce; the loop stops once none
    /// remain, or at `deadline`, when the rest are force-closed.
    func beginShutdown(within timeout: Duration) {
        precondition(inEventLoop)
        guard state == .running else { return }
        state = .quiescing
        for target in slots.compactMap({ $0?.target }) { target.quiesce() }
        insertTimer(id: nextTimerID.wrappingAdd(1, ordering: .relaxed).oldValue,
                    deadline: Monotonic.now() &+ timeout.nanosecondsClamped) { [self] in
            for target in slots.compactMap({ $0?.target }) { target.forceClose() }
            state = .stopped
        }
    }

    /// True once a graceful shutdown began: new connections should not be started.
    var isShuttingDown: Bool { state != .running }
}
