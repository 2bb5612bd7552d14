! The Fortran calls of CP2K, Quantum ESPRESSO and ABINIT that netsens's library wraps
! beside the point-to-point basics, at 2 ranks, each once, every result checked: prints
! "wrapped ok" on rank 0 or stops with an error. In order:
!   communicators: mpi_comm_split_type, mpi_comm_create (the world's group),
!     mpi_comm_create_group, mpi_cart_create (2 x 1, periodic), mpi_cart_sub;
!   on the cartesian communicator: mpi_allgatherv, mpi_alltoallv, mpi_gatherv,
!     mpi_scatterv (root 0), mpi_reduce_scatter, mpi_scan;
!   on the world: mpi_sendrecv_replace (4 integers with the other rank), then three
!     exchanges of one integer each way, completed by mpi_testany, mpi_testall and
!     mpi_waitany (two messages each way: an mpi_isend and an mpi_irecv per rank).
program wrapped
  use mpi
  implicit none
  integer :: ierr, rank, other, node, created, grouped, cart, row, group, i, idx, done
  integer :: dims(2), n, k
  logical :: periods(2), remain(2), flag
  integer :: counts(2), displs(2), sendv(3), recvv(3), buf4(4), one, got
  integer :: reqs(2), statuses(MPI_STATUS_SIZE, 2), status(MPI_STATUS_SIZE)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  other = 1 - rank

  call MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, group, ierr)
  call MPI_Comm_create(MPI_COMM_WORLD, group, created, ierr)
  call MPI_Comm_create_group(MPI_COMM_WORLD, group, 5, grouped, ierr)
  dims = (/ 2, 1 /)
  periods = (/ .true., .false. /)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., cart, ierr)
  remain = (/ .true., .false. /)
  call MPI_Cart_sub(cart, remain, row, ierr)
  call MPI_Comm_size(row, n, ierr)
  call check(n == 2, "cart_sub keeps the 2 ranks of the first dimension")
  call MPI_Comm_size(node, n, ierr)
  call check(n == 2 .and. created /= MPI_COMM_NULL .and. grouped /= MPI_COMM_NULL, "communicators")

  ! rank r contributes r + 1 integers of value 10 (r + 1)
  counts = (/ 1, 2 /)
  displs = (/ 0, 1 /)
  sendv = 10 * (rank + 1)
  recvv = 0
  call MPI_Allgatherv(sendv, rank + 1, MPI_INTEGER, recvv, counts, displs, MPI_INTEGER, cart, ierr)
  call check(all(recvv == (/ 10, 20, 20 /)), "allgatherv")
  recvv = 0
  call MPI_Gatherv(sendv, rank + 1, MPI_INTEGER, recvv, counts, displs, MPI_INTEGER, 0, cart, ierr)
  if (rank == 0) call check(all(recvv == (/ 10, 20, 20 /)), "gatherv")
  sendv = (/ 1, 2, 3 /)
  recvv = 0
  call MPI_Scatterv(sendv, counts, displs, MPI_INTEGER, recvv, rank + 1, MPI_INTEGER, 0, cart, ierr)
  if (rank == 0) call check(recvv(1) == 1, "scatterv to rank 0")
  if (rank == 1) call check(all(recvv(1:2) == (/ 2, 3 /)), "scatterv to rank 1")
  ! alltoallv: each rank sends its first integer to rank 0, the next two to rank 1
  sendv = (/ 100 * rank + 1, 100 * rank + 2, 100 * rank + 3 /)
  recvv = 0
  if (rank == 0) then
    call MPI_Alltoallv(sendv, (/ 1, 2 /), (/ 0, 1 /), MPI_INTEGER, recvv, (/ 1, 1 /), (/ 0, 1 /), &
                       MPI_INTEGER, cart, ierr)
    call check(recvv(1) == 1 .and. recvv(2) == 101, "alltoallv at rank 0")
  else
    call MPI_Alltoallv(sendv, (/ 1, 2 /), (/ 0, 1 /), MPI_INTEGER, recvv, (/ 2, 2 /), (/ 0, 2 /), &
                       MPI_INTEGER, cart, ierr)
    call check(all(recvv(1:2) == (/ 2, 3 /)), "alltoallv at rank 1, from rank 0")
  end if
  sendv = (/ rank + 1, rank + 1, rank + 1 /)
  got = 0
  call MPI_Reduce_scatter(sendv, got, (/ 1, 1 /), MPI_INTEGER, MPI_SUM, cart, ierr)
  call check(got == 3, "reduce_scatter")
  one = rank + 1
  call MPI_Scan(one, got, 1, MPI_INTEGER, MPI_SUM, cart, ierr)
  call check(got == (rank + 1) * (rank + 2) / 2, "scan")

  buf4 = rank
  call MPI_Sendrecv_replace(buf4, 4, MPI_INTEGER, other, 3, other, 3, MPI_COMM_WORLD, status, ierr)
  call check(all(buf4 == other) .and. status(MPI_SOURCE) == other, "sendrecv_replace")

  do k = 1, 3
    one = 1000 * k + rank
    got = -1
    call MPI_Irecv(got, 1, MPI_INTEGER, other, k, MPI_COMM_WORLD, reqs(1), ierr)
    call MPI_Isend(one, 1, MPI_INTEGER, other, k, MPI_COMM_WORLD, reqs(2), ierr)
    select case (k)
    case (1)
      done = 0
      do while (done < 2)
        call MPI_Testany(2, reqs, idx, flag, status, ierr)
        if (flag .and. idx /= MPI_UNDEFINED) then
          call check(reqs(idx) == MPI_REQUEST_NULL, "testany frees the request it completes")
          done = done + 1
        end if
      end do
    case (2)
      flag = .false.
      do while (.not. flag)
        call MPI_Testall(2, reqs, flag, statuses, ierr)
      end do
      call check(statuses(MPI_SOURCE, 1) == other, "testall's status of the receive")
    case (3)
      do i = 1, 2
        call MPI_Waitany(2, reqs, idx, status, ierr)
        call check(idx == 1 .or. idx == 2, "waitany's index counts from 1")
      end do
    end select
    call check(got == 1000 * k + other .and. all(reqs == MPI_REQUEST_NULL), "exchange")
  end do

  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (rank == 0) print '(A)', 'wrapped ok'
  call MPI_Finalize(ierr)

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      print '(A,I0,2A)', 'rank ', rank, ': wrong: ', what
      call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    end if
  end subroutine check
end program wrapped
